/**
 * A slow-loris client: it sends its new-session body a byte at a time. gridgate reads the whole body
 * before it takes a quota slot or starts anything, so such a client holds a connection but no slot, no
 * queue place and no browser, and other clients are served meanwhile. Nothing cuts it off: the Node
 * server sets requestTimeout = 0 (functions/entry/start-grid.ts, so long new sessions are not cut) and
 * Node's headersTimeout (60 s) covers the headers only. Run against the real Node server (startGrid).
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { jsonRequest, W3C_CHROME } from '../support/fake-grid';
import { CollectingLogger, FakeUpstream } from '../support/fakes';
import { until } from '../support/until';

let grid: RunningGrid | undefined;
let hub: FakeUpstream | undefined;
afterEach(async () => {
  await grid?.close();
  await hub?.close();
  grid = undefined;
  hub = undefined;
});

const TRICKLE_MS = 2500;
// The slow client's pace: a body trickled over TRICKLE_MS is what the test is about.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a slow-loris client', () => {
  it('holds its connection but no slot, while other clients get sessions; its session comes when the body does', async () => {
    hub = await FakeUpstream.start();
    const config = parseConfig(
      {
        port: 0,
        host: '127.0.0.1',
        browsers: { chrome: { defaultVersion: '1.0', versions: { '1.0': { pools: ['hub'] } } } },
        // One slot: if the slow client held it, nobody else could get a session.
        pools: { hub: { kind: 'hub', url: `http://${hub.address}`, maxSessions: 1 } },
      },
      { builtInBrowserVersion: 'unused' },
    );
    grid = await startGrid(config, randomBytes(32), new CollectingLogger());
    const { port } = grid;

    const body = Buffer.from(JSON.stringify(W3C_CHROME));
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    const perByte = TRICKLE_MS / body.length;
    let trickled = 0;
    const trickle = (async () => {
      for (const byte of body.subarray(0, -1)) {
        socket.write(Buffer.from([byte]));
        trickled++;
        await pause(perByte);
      }
    })();

    // Meanwhile, with the slow body on its way, another client gets the only slot, uses it and gives it back.
    await until(() => trickled >= body.length / 10, 'a tenth of the slow body has gone out');
    const other = await fetch(`${grid.url}/session`, jsonRequest('POST', W3C_CHROME));
    expect(other.status).toBe(200);
    const otherId = ((await other.json()) as { value: { sessionId: string } }).value.sessionId;
    expect((await fetch(`${grid.url}/session/${otherId}`, { method: 'DELETE' })).status).toBe(200);

    await trickle;
    // Still connected, still unanswered, still holding nothing.
    expect(socket.destroyed).toBe(false);
    expect(answer).toBe('');
    expect(await grid.deps.sessions.inUse()).toEqual({});
    expect(grid.deps.queue.lengths().waiting).toBe(0);

    socket.write(body.subarray(-1));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const created = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      value: { sessionId: string };
    };
    expect((await fetch(`${grid.url}/session/${created.value.sessionId}`, { method: 'DELETE' })).status).toBe(
      200,
    );
    expect(await grid.deps.sessions.inUse()).toEqual({});
    expect(hub.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });
});
