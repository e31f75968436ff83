/**
 * `npm start` (functions/entry/node-server.ts, a child process) receiving SIGTERM while sessions are
 * open, a command is in flight and a new-session request is queued: every session it holds is ended
 * at its remote end, waiting clients get an answer or a closed connection (never a hang), and the
 * process exits 0. A hub pool on a fake remote end stands in for browsers, so the test can see each
 * one ended; test/e2e/node-server.test.ts does the same with one real Chromium.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { type FakeAnswer, FakeUpstream } from '../support/fakes';
import { type NodeServerProcess, startNodeServer } from '../support/node-server-process';
import { until } from '../support/until';
import { eventually } from './served-fake-grid';

const SESSIONS = 3;

let server: NodeServerProcess | undefined;
let hub: FakeUpstream | undefined;
afterEach(async () => {
  server?.dispose();
  await hub?.close();
  server = hub = undefined;
});

async function startWithSessions(): Promise<{ url: string; ids: string[]; running: NodeServerProcess }> {
  hub = await FakeUpstream.start();
  const started = startNodeServer({
    port: 0,
    host: '127.0.0.1',
    browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
    pools: { hub: { kind: 'hub', url: `http://${hub.address}`, maxSessions: SESSIONS } },
  });
  server = started;
  const url = await started.url;
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
  return { url, ids, running: started };
}

/** Each upstream session was ended there (DELETE), and no other session was ever created. */
function expectEveryUpstreamSessionEnded(upstream: FakeUpstream): void {
  const deleted = upstream.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
  expect(deleted.sort()).toEqual(upstream.sessionIds.map((id) => `/session/${id}`).sort());
}

describe('SIGTERM with sessions open', () => {
  it('ends every session at its remote end, answers a command in flight and exits 0', async () => {
    const { url, ids, running } = await startWithSessions();
    const inFlight = fetch(`${url}/session/${ids[0]}/title`).then(
      (response) => String(response.status),
      () => 'connection closed',
    );
    await eventually(() => expect(hub?.commands().map((r) => r.method)).toEqual(['GET']));

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(hub?.sessionIds).toHaveLength(SESSIONS);
    expectEveryUpstreamSessionEnded(hub as FakeUpstream);
    // The client waiting for its command gets an answer or a closed connection, never a hang.
    expect(await inFlight).toMatch(/^(404|500|502|connection closed)$/);
  });

  // Shutdown frees slots as it ends sessions; a request queued for one must not start a browser then,
  // which nobody would ever end (with ECS pools: a task left running).
  it('creates no new session for a request queued when the signal comes', async () => {
    const { url, running } = await startWithSessions();
    const queued = fetch(`${url}/session`, jsonRequest('POST', W3C_CHROME)).then(
      async (response) =>
        `${response.status} ${((await response.json()) as { value: { error: string } }).value.error}`,
      () => 'connection closed',
    );
    // Queued: the pool's slots are all taken.
    await until(() => running.lines.some((line) => line.event === 'SESSION_QUEUED'), 'the request is queued');
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(await queued).toMatch(/^(500 session not created|connection closed)$/);
    expect(hub?.sessionIds).toHaveLength(SESSIONS);
    expectEveryUpstreamSessionEnded(hub as FakeUpstream);
  });
});
