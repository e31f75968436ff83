/**
 * A client that goes away while its browser is being created (Ctrl-C in a test run, a CI job killed):
 * the browser already started is stopped, the slot comes back, and nothing waits for an answer no
 * one will read.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeAnswer } from '../support/fakes';
import { eventually, expectNothingLeft, type ServedFakeGrid, serveFakeGrid } from './served-fake-grid';

let grid: ServedFakeGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

const BODY = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } });

/** Sends a whole POST /session on a raw socket and returns the socket, so the test can kill it. */
function postSessionRaw(origin: string) {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.write(
    `POST /session HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`,
  );
  return socket;
}

describe('a client killed mid-creation', () => {
  it('stops the browser that was starting for it and frees its slot', async () => {
    // The browser is up, but its driver has not answered the new session yet when the client dies.
    const neverAnswered = new Promise<FakeAnswer>(() => {});
    grid = await serveFakeGrid({ launcher: { newSession: () => neverAnswered } });
    const socket = postSessionRaw(grid.origin);
    await eventually(() => {
      expect(grid?.launcher.started).toHaveLength(1);
      expect(grid?.launcher.upstream().requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /session',
      ]);
    });
    socket.destroy();
    await expectNothingLeft(grid);
    expect(grid.logger.fieldsOf('SESSION_FAILED')).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/client went away|client/i) }),
    ]);
  });

  it('takes a client killed while queued out of the queue without starting anything', async () => {
    grid = await serveFakeGrid({ config: { pools: { local: { kind: 'local', maxSessions: 1 } } } });
    // The one slot is held by a session that has been created.
    const held = await fetch(`${grid.origin}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: BODY,
    });
    const { value } = (await held.json()) as { value: { sessionId: string } };
    const socket = postSessionRaw(grid.origin);
    await eventually(() => expect(grid?.deps.queue.lengths().waiting).toBe(1));
    socket.destroy();
    await eventually(() => expect(grid?.deps.queue.lengths().waiting).toBe(0));
    expect(grid.launcher.started).toHaveLength(1);
    expect((await fetch(`${grid.origin}/session/${value.sessionId}`, { method: 'DELETE' })).status).toBe(200);
    await expectNothingLeft(grid);
  });
});
