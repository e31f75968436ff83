/**
 * Selenium Grid 4's file transfer through the whole app: answered by gridgate where the launcher serves it
 * (local pools), passed to the browser's node everywhere else; every bad request a W3C error.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LaunchedBrowser, LaunchRequest } from '../../functions/core/ports';
import { LocalFileTransfer } from '../../functions/pools/local/local-file-transfer';
import { SessionDirectories } from '../../functions/pools/local/session-directories';
import { expectW3cError, type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';
import { FakeLauncher } from '../support/fakes';
import { zipBytes } from '../support/zip-bytes';

/** A fake browser whose launcher serves file transfer as the local one does, over a real directory. */
class TransferringLauncher extends FakeLauncher {
  readonly directories: SessionDirectories;
  readonly files: LocalFileTransfer;

  constructor(readonly root: string) {
    super();
    this.directories = new SessionDirectories(root);
    this.files = new LocalFileTransfer(this.directories, (handle) => !this.stops.includes(handle));
  }

  override async start(request: LaunchRequest): Promise<LaunchedBrowser> {
    const browser = await super.start(request);
    this.directories.open(browser.handle);
    return browser;
  }

  override async stop(handle: string): Promise<void> {
    await super.stop(handle);
    await this.directories.remove(handle);
  }
}

const upload = (data: string | Buffer) =>
  jsonRequest('POST', { file: zipBytes([{ name: 'hello.txt', data, deflate: true }]).toString('base64') });

describe('file transfer for sessions whose node serves it (ecs, eks, hub)', () => {
  let grid: FakeGrid;
  afterEach(() => grid.close());

  it('passes /se/file and /se/files to the browser’s node, bodies and methods unchanged', async () => {
    grid = startFakeGrid();
    const id = await newSession(grid);
    const upstream = grid.launcher.upstream();
    const upstreamId = upstream.sessionIds[0];
    const body = JSON.stringify({ file: 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==' });
    expect((await grid.app.request(`/session/${id}/se/file`, jsonRequest('POST', body))).status).toBe(200);
    await grid.app.request(`/wd/hub/session/${id}/se/files`);
    await grid.app.request(`/session/${id}/se/files`, jsonRequest('POST', { name: 'a.pdf' }));
    await grid.app.request(`/session/${id}/se/files`, { method: 'DELETE' });
    expect(upstream.commands().map((c) => [c.method, c.path, c.body])).toEqual([
      ['POST', `/session/${upstreamId}/se/file`, body],
      ['GET', `/session/${upstreamId}/se/files`, ''],
      ['POST', `/session/${upstreamId}/se/files`, '{"name":"a.pdf"}'],
      ['DELETE', `/session/${upstreamId}/se/files`, ''],
    ]);
  });
});

describe('file transfer gridgate serves itself (local pools)', () => {
  let root: string;
  let grid: FakeGrid;
  let launcher: TransferringLauncher;
  let id: string;

  function start(limits: Record<string, string> = {}) {
    root = mkdtempSync(join(tmpdir(), 'gridgate-transfer-http-'));
    launcher = new TransferringLauncher(root);
    grid = startFakeGrid({ config: { limits } });
    grid.deps.runtimes.local = { launcher, files: launcher.files };
  }
  beforeEach(async () => {
    start();
    id = await newSession(grid);
  });
  afterEach(async () => {
    await grid.close();
    await launcher.closeAll();
    rmSync(root, { recursive: true, force: true });
  });

  /** Files under the test's root other than the session's own (empty) directories. */
  const written = () =>
    readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (path) => !/^gridgate-session-\d+-[\w-]+(\/uploads)?$/.test(path),
    );

  it('answers the uploaded file’s path as Selenium Grid 4 does, and never asks the browser', async () => {
    const response = await grid.app.request(`/session/${id}/se/file`, upload('hi there'));
    const { value } = (await response.json()) as { value: string };
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(readFileSync(value, 'utf8')).toBe('hi there');
    expect(launcher.upstream().commands()).toEqual([]);
    // Counted as the session's activity, like any command.
    expect((await grid.sessions.running())[0]?.lastCommand).toBe('POST /se/file');
  });

  it.each([
    ['a body that is not JSON', 'not json', /not valid JSON/],
    ['no "file"', '{}', /needs \{"file"/],
    ['a "file" that is not base64', '{"file":"not base64!"}', /not base64/],
    ['a "file" that is not a zip', `{"file":"${Buffer.from('plain text').toString('base64')}"}`, /not a zip/],
  ])('refuses %s with invalid argument', async (_case, body, message) => {
    const response = await grid.app.request(`/session/${id}/se/file`, jsonRequest('POST', body));
    await expectW3cError(response, 400, 'invalid argument', message);
    expect(written()).toEqual([]);
  });

  it('refuses a traversal name with invalid argument and writes nothing', async () => {
    const zip = zipBytes([{ name: '../../escaped.txt', data: 'x' }]).toString('base64');
    const response = await grid.app.request(`/session/${id}/se/file`, jsonRequest('POST', { file: zip }));
    await expectW3cError(response, 400, 'invalid argument', /invalid relative path/);
    expect(written()).toEqual([]);
  });

  it('refuses a body over limits.maxBodySize and a file over limits.maxUploadSize with 413', async () => {
    await grid.close();
    start({ maxBodySize: '2KB', maxUploadSize: '10KB' });
    id = await newSession(grid);
    const big = await grid.app.request(
      `/session/${id}/se/file`,
      upload(Buffer.from(crypto.getRandomValues(new Uint8Array(4096)))),
    );
    await expectW3cError(big, 413, 'invalid argument', /request body is larger/);
    const bomb = await grid.app.request(`/session/${id}/se/file`, upload(Buffer.alloc(64 * 1024)));
    await expectW3cError(
      bomb,
      413,
      'invalid argument',
      /unpacks to more than this grid accepts \(10240 bytes\)/,
    );
    expect(written()).toEqual([]);
  });

  it('refuses a forged session ID before touching any file', async () => {
    const forged = `${id.slice(0, -4)}AAAA`;
    await expectW3cError(
      await grid.app.request(`/session/${forged}/se/file`, upload('x')),
      404,
      'invalid session id',
    );
    await expectW3cError(await grid.app.request(`/session/${forged}/se/files`), 404, 'invalid session id');
    expect(readdirSync(root)).toEqual([]);
  });

  it('answers unsupported operation for downloads of a session that did not enable them', async () => {
    for (const request of [
      grid.app.request(`/session/${id}/se/files`),
      grid.app.request(`/session/${id}/se/files`, jsonRequest('POST', { name: 'a.txt' })),
      grid.app.request(`/session/${id}/se/files`, { method: 'DELETE' }),
    ]) {
      await expectW3cError(await request, 500, 'unsupported operation', /se:downloadsEnabled/);
    }
  });

  it('answers invalid session id once the session has ended, and its files are gone', async () => {
    const response = await grid.app.request(`/session/${id}/se/file`, upload('x'));
    const { value } = (await response.json()) as { value: string };
    await grid.app.request(`/session/${id}`, { method: 'DELETE' });
    expect(readdirSync(root)).toEqual([]);
    await expectW3cError(
      await grid.app.request(`/session/${id}/se/file`, upload('x')),
      404,
      'invalid session id',
    );
    expect(() => readFileSync(value)).toThrow();
    expect(readdirSync(root)).toEqual([]);
  });
});
