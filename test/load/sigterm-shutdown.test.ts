/**
 * `npm start` (functions/entry/node-server.ts, a child process) receiving SIGTERM while sessions are
 * open, a command is in flight and a new-session request is queued: every session it holds is ended
 * at its remote end, waiting clients get an answer or a closed connection (never a hang), and the
 * process exits 0. A hub pool on a fake remote end stands in for browsers, so the test can see each
 * one ended; test/e2e/node-server.test.ts does the same with one real Chromium.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { type FakeAnswer, FakeUpstream } from '../support/fakes';
import { NODE_SERVER_ARGS } from '../support/node-server-process';
import { eventually } from './served-fake-grid';

const SESSIONS = 3;

let child: ChildProcess | undefined;
let hub: FakeUpstream | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await hub?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = hub = dir = undefined;
});

function startServer(config: unknown): { url: Promise<string>; exited: Promise<number | null> } {
  dir = mkdtempSync(join(tmpdir(), 'gridgate-load-'));
  const file = join(dir, 'gridgate.json');
  writeFileSync(file, JSON.stringify(config));
  const started = spawn(process.execPath, [...NODE_SERVER_ARGS, '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  let stderr = '';
  started.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: started.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const event = JSON.parse(line) as { event: string; url?: string };
      if (event.event === 'SERVER_STARTED') resolve(event.url as string);
    });
    started.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
  return { url, exited };
}

async function startWithSessions(): Promise<{ url: string; ids: string[]; exited: Promise<number | null> }> {
  hub = await FakeUpstream.start();
  const server = startServer({
    port: 0,
    host: '127.0.0.1',
    browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
    pools: { hub: { kind: 'hub', url: `http://${hub.address}`, maxSessions: SESSIONS } },
  });
  const url = await server.url;
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const response = await fetch(`${url}/session`, jsonRequest('POST', W3C_CHROME));
    expect(response.status).toBe(200);
    ids.push(((await response.json()) as { value: { sessionId: string } }).value.sessionId);
  }
  // Commands for the title are never answered: a command in flight when the signal comes.
  const answer = hub.respond;
  hub.respond = (request) =>
    request.path.endsWith('/title') ? new Promise<FakeAnswer>(() => {}) : answer(request);
  return { url, ids, exited: server.exited };
}

/** Each upstream session was ended there (DELETE), and no other session was ever created. */
function expectEveryUpstreamSessionEnded(upstream: FakeUpstream): void {
  const deleted = upstream.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
  expect(deleted.sort()).toEqual(upstream.sessionIds.map((id) => `/session/${id}`).sort());
}

describe('SIGTERM with sessions open', () => {
  it('ends every session at its remote end, answers a command in flight and exits 0', async () => {
    const { url, ids, exited } = await startWithSessions();
    const inFlight = fetch(`${url}/session/${ids[0]}/title`).then(
      (response) => String(response.status),
      () => 'connection closed',
    );
    await eventually(() => expect(hub?.commands().map((r) => r.method)).toEqual(['GET']));

    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(hub?.sessionIds).toHaveLength(SESSIONS);
    expectEveryUpstreamSessionEnded(hub as FakeUpstream);
    // The client waiting for its command gets an answer or a closed connection, never a hang.
    expect(await inFlight).toMatch(/^(404|500|502|connection closed)$/);
  });

  // Shutdown frees slots as it ends sessions; a request queued for one must not start a browser then,
  // which nobody would ever end (with ECS pools: a task left running).
  it('creates no new session for a request queued when the signal comes', async () => {
    const { url, exited } = await startWithSessions();
    const queued = fetch(`${url}/session`, jsonRequest('POST', W3C_CHROME)).then(
      async (response) =>
        `${response.status} ${((await response.json()) as { value: { error: string } }).value.error}`,
      () => 'connection closed',
    );
    // Queued: the pool's slots are all taken.
    await new Promise((resolve) => setTimeout(resolve, 300));
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await queued).toMatch(/^(500 session not created|connection closed)$/);
    expect(hub?.sessionIds).toHaveLength(SESSIONS);
    expectEveryUpstreamSessionEnded(hub as FakeUpstream);
  });
});
