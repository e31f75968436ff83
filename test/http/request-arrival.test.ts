/**
 * How long the Node server waits for a client to send its request (timeouts.request), on real sockets
 * against the real server: a header section or a body that stops arriving is answered 408 `timeout` and
 * its connection closed; an upload that keeps sending is read to its end, however long it takes.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger } from '../support/fakes';
import { startNodeServer } from '../support/node-server-process';
import { until } from '../support/until';

let grid: RunningGrid | undefined;
let logger: CollectingLogger;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await grid?.close();
  grid = undefined;
});

async function start(): Promise<number> {
  const config = parseConfig(
    { port: 0, host: '127.0.0.1', timeouts: { request: '1s' } },
    { builtInBrowserVersion: '1' },
  );
  logger = new CollectingLogger();
  grid = await startGrid(config, randomBytes(32), logger, { reloadPollMs: 0 });
  return grid.port;
}

interface Exchange {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A connection that has sent `head` and goes on only when the test writes more. */
function open(port: number, head: string): Exchange {
  const socket = connect(port, '127.0.0.1', () => socket.write(head));
  sockets.push(socket);
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    answer += chunk;
  });
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
  return { socket, closed };
}

function parsed(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...headers] = head.split('\r\n');
  return {
    status: Number(statusLine?.split(' ')[1]),
    headers: headers.map((line) => line.toLowerCase()),
    value: (JSON.parse(body) as { value: Record<string, string> }).value,
  };
}

const newSessionHead = (length: number) =>
  `POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('requests that stop arriving', { timeout: 60_000 }, () => {
  it('answers 50 bodies that stall with 408 timeout and closes every connection', async () => {
    const port = await start();
    const stalled = Array.from({ length: 50 }, () => open(port, `${newSessionHead(1000)}{"capabilities":`));
    const answers = (await Promise.all(stalled.map((exchange) => exchange.closed))).map(parsed);
    for (const answer of answers) {
      expect(answer.status).toBe(408);
      expect(answer.headers).toContain('connection: close');
      expect(answer.headers).toContain('content-type: application/json; charset=utf-8');
      expect(answer.value).toEqual({
        error: 'timeout',
        message: 'the request body sent no byte for 1s (timeouts.request); the connection is closed',
        stacktrace: '',
      });
    }
    expect(logger.fieldsOf('REQUEST_TIMED_OUT')).toHaveLength(50);
    expect(logger.fieldsOf('REQUEST_TIMED_OUT')[0]).toMatchObject({ method: 'POST', path: '/session' });
    expect(logger.events()).not.toContain('REQUEST_FAILED');
    expect(await grid?.deps.sessions.inUse()).toEqual({});
  });

  it('answers a header section that never ends with 408 timeout and closes the connection', async () => {
    const port = await start();
    const answer = parsed(await open(port, 'POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\n').closed);
    expect(answer.status).toBe(408);
    expect(answer.value.error).toBe('timeout');
    expect(answer.value.message).toMatch(/header section did not arrive in time \(timeouts.request\)/);
  });

  it('closes the connection of a body that stalls after the answer went out', async () => {
    const port = await start();
    // A command with a forged session ID is answered at once, its body unread; the rest never comes.
    const raw = await open(
      port,
      'POST /session/forged/url HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":',
    ).closed;
    expect(parsed(raw).status).toBe(404);
    expect(parsed(raw).value.error).toBe('invalid session id');
    expect(logger.fieldsOf('REQUEST_TIMED_OUT')).toMatchObject([{ path: '/session/forged/url' }]);
  });
});

describe('npm start with worker processes', { timeout: 120_000 }, () => {
  it('times out stalled bodies and header sections in its workers too', async () => {
    const server = startNodeServer({ port: 0, host: '127.0.0.1', workers: 2, timeouts: { request: '1s' } });
    try {
      const port = Number(new URL(await server.url).port);
      const running = server;
      await until(
        () => running.lines.filter((line) => line.event === 'WORKER_STARTED').length === 2,
        'both workers listen',
      );
      // Connections go to the workers in turn: four reach both of them.
      const stalled = [
        ...Array.from({ length: 4 }, () => open(port, `${newSessionHead(1000)}{"capabilities":`)),
        open(port, 'POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      ];
      for (const answer of (await Promise.all(stalled.map((exchange) => exchange.closed))).map(parsed)) {
        expect(answer.status).toBe(408);
        expect(answer.value.error).toBe('timeout');
      }
    } finally {
      await server.stop();
    }
  });
});

describe('an upload that keeps sending', { timeout: 60_000 }, () => {
  it('is read to its end, though it takes several times timeouts.request', async () => {
    const port = await start();
    // 4 MiB in 16 pieces a quarter of a second apart: about four times the 1 s limit in all, no pause near it.
    const json = '{"capabilities":{"alwaysMatch":{"browserName":"no-such-browser"}}}';
    const body = json.padEnd(4 * 1024 * 1024, ' ');
    const exchange = open(port, newSessionHead(body.length));
    const piece = body.length / 16;
    for (let at = 0; at < body.length; at += piece) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      exchange.socket.write(body.slice(at, at + piece));
    }
    exchange.socket.end();
    const answer = parsed(await exchange.closed);
    // The whole body was read: the grid answers what it asked for.
    expect(answer.status).toBe(500);
    expect(answer.value.error).toBe('session not created');
    expect(answer.value.message).toMatch(/no browser here matches \{browserName "no-such-browser"\}/);
    expect(logger.events()).not.toContain('REQUEST_TIMED_OUT');
  });
});
