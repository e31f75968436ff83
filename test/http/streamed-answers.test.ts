/**
 * Streamed answers as web Responses (the portable path, the Lambda's): a managed download's bytes and its
 * zip in JSON come whole, as bytes; and a client that goes away in the middle of an answer releases what
 * feeds it: a command's answer closes the browser's connection, a download stops being read. Nothing is
 * left open and nothing throws outside a caller, however many chunks were still on their way.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { DownloadedFileReader, FileTransfer } from '../../functions/core/ports';
import { type FakeGrid, jsonRequest, newSession, startFakeGrid } from '../support/fake-grid';
import { FakeLauncher } from '../support/fakes';
import { until } from '../support/until';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** A browser's answer that never ends: a chunk on every tick while its connection is open. */
function endlessAnswer(res: ServerResponse, open: Set<ServerResponse>): void {
  open.add(res);
  res.once('close', () => open.delete(res));
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const timer = setInterval(() => res.write(CHUNK), 1);
  res.once('close', () => clearInterval(timer));
}

/** Reads a few chunks of the answer, then cancels it, as a client that goes away does. */
async function readSomeThenCancel(response: Response): Promise<void> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (let i = 0; i < 3; i++) await reader.read();
  await reader.cancel();
}

let grid: FakeGrid | undefined;
let browser: Server | undefined;
afterEach(async () => {
  await grid?.close();
  browser?.closeAllConnections();
  await new Promise((resolve) => (browser ? browser.close(resolve) : resolve(undefined)));
  grid = undefined;
  browser = undefined;
});

describe('a command answer the client cancels (portable path)', () => {
  it('closes the browser’s connection, with chunks still arriving', async () => {
    const open = new Set<ServerResponse>();
    let answers = 0;
    browser = createServer((req, res) => {
      if (req.url === '/wd/hub/session' && req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ value: { sessionId: 'hub-1', capabilities: { browserName: 'chrome' } } }));
        return;
      }
      answers++;
      endlessAnswer(res, open);
    });
    await new Promise<void>((resolve) => browser?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(browser.address() as AddressInfo).port}/wd/hub`;
    grid = startFakeGrid({
      config: {
        browsers: { chrome: { versions: { stable: { pools: ['hub'] } } } },
        pools: { hub: { kind: 'hub', url } },
      },
    });
    const id = await newSession(grid);
    // app.request has no Node bindings: the portable path, as in the Lambda.
    const response = await grid.app.request(`/session/${id}/screenshot`);
    expect(response.status).toBe(200);
    await readSomeThenCancel(response);
    await until(() => answers === 1 && open.size === 0, 'the browser’s answer is closed');
  });
});

/** A launcher whose file transfer hands out bytes that never end, as a very large download would. */
class EndlessDownloads extends FakeLauncher {
  readonly sources: PassThrough[] = [];
  readonly files: FileTransfer = {
    upload: async () => '/nowhere',
    downloads: async () => [],
    deleteDownloads: async () => {},
    download: async (): Promise<DownloadedFileReader> => {
      const file = { name: 'big.bin', creationTime: 0, lastModifiedTime: 0, size: 1 << 30 };
      return { file, bytes: () => this.endless(), zipped: () => this.endless() };
    },
  };

  private endless(): Readable {
    const source = new PassThrough();
    this.sources.push(source);
    const timer = setInterval(() => source.write(CHUNK), 1);
    source.once('close', () => clearInterval(timer));
    return source;
  }
}

/** A launcher whose one downloaded file is `bytes`, zipped as `zip` (what LocalFileTransfer reads them from). */
class OneDownload extends FakeLauncher {
  constructor(
    private readonly bytes: Buffer,
    private readonly zip: Buffer,
  ) {
    super();
  }

  readonly files: FileTransfer = {
    upload: async () => '/nowhere',
    downloads: async () => [],
    deleteDownloads: async () => {},
    download: async (_handle, name): Promise<DownloadedFileReader> => ({
      file: { name, creationTime: 1, lastModifiedTime: 2, size: this.bytes.length },
      // In pieces, as files and zips are read.
      bytes: () => Readable.from([this.bytes.subarray(0, 3), this.bytes.subarray(3)]),
      zipped: () => Readable.from([this.zip.subarray(0, 4), this.zip.subarray(4)]),
    }),
  };
}

describe('a managed download through a web Response', () => {
  it('comes whole, as its bytes or as its zip’s base64 in JSON, a non-ASCII name kept', async () => {
    const bytes = Buffer.from('%PDF-1.7 résumé');
    const zip = Buffer.from('PK\x03\x04 stands in for the zip of it');
    grid = startFakeGrid();
    const launcher = new OneDownload(bytes, zip);
    grid.deps.runtimes.local = { launcher, files: launcher.files };
    const id = await newSession(grid);
    const ask = (headers: Record<string, string> = {}) =>
      grid?.app.request(`/session/${id}/se/files`, jsonRequest('POST', { name: 'résumé.pdf' }, headers));
    const raw = (await ask({ accept: 'application/octet-stream' })) as Response;
    expect(Buffer.from(await raw.arrayBuffer()).equals(bytes)).toBe(true);
    const zipped = (await ask()) as Response;
    expect(await zipped.json()).toEqual({
      value: {
        filename: 'résumé.pdf',
        file: { name: 'résumé.pdf', creationTime: 1, lastModifiedTime: 2, size: bytes.length },
        contents: zip.toString('base64'),
      },
    });
  });
});

describe('a managed download the client cancels', () => {
  it.each([
    ['its bytes', { accept: 'application/octet-stream' }],
    ['its zip in JSON', {}],
  ])('stops reading %s', async (_what, headers: Record<string, string>) => {
    const launcher = new EndlessDownloads();
    grid = startFakeGrid();
    grid.deps.runtimes.local = { launcher, files: launcher.files };
    const id = await newSession(grid);
    const response = await grid.app.request(
      `/session/${id}/se/files`,
      jsonRequest('POST', { name: 'big.bin' }, headers),
    );
    expect(response.status).toBe(200);
    await readSomeThenCancel(response);
    await until(
      () => launcher.sources.length === 1 && launcher.sources[0]?.destroyed,
      'the download is released',
    );
    await launcher.closeAll();
  });
});
