/**
 * What the Node server answers to requests its HTTP parser refuses before any handler sees them: a W3C
 * error body with the status, not Node's bare 400/431 or nothing at all; and how a client that leaves
 * in the middle of its request is logged.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonLogger } from '../../functions/adapters/stdout/json-logger';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger } from '../support/fakes';
import { exchange } from '../support/raw-exchange';
import { until } from '../support/until';

let grid: RunningGrid | undefined;
afterEach(async () => {
  await grid?.close();
  grid = undefined;
});

function w3cAnswer(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...headers] = head.split('\r\n');
  return {
    status: Number(statusLine?.split(' ')[1]),
    contentType: headers
      .find((h) => h.toLowerCase().startsWith('content-type:'))
      ?.slice(13)
      .trim(),
    body: JSON.parse(body) as { value: Record<string, string> },
  };
}

let logger: CollectingLogger;

async function start(): Promise<number> {
  const config = parseConfig({ port: 0, host: '127.0.0.1' }, { builtInBrowserVersion: '1' });
  logger = new CollectingLogger();
  grid = await startGrid(config, randomBytes(32), logger, { reloadPollMs: 0 });
  return grid.port;
}

describe('requests Node cannot parse', () => {
  it('answers header fields past the limit with 431 and a W3C body', async () => {
    const port = await start();
    const answer = w3cAnswer(
      await exchange(port, `GET /status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.contentType).toBe('application/json; charset=utf-8');
    expect(Object.keys(answer.body.value).sort()).toEqual(['error', 'message', 'stacktrace']);
    expect(answer.body.value.error).toBe('invalid argument');
  });

  it('answers a 70 KB header field with 431 and a W3C body, the connection closed without a reset', async () => {
    const port = await start();
    const raw = await exchange(
      port,
      `GET /status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`,
    );
    expect(w3cAnswer(raw).status).toBe(431);
    expect(w3cAnswer(raw).body.value.error).toBe('invalid argument');
    // A real client too: curl sends the header whole, then reads the answer.
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '-w',
      '\n%{http_code}',
      '-H',
      `X-Big: ${'a'.repeat(70_000)}`,
      `http://127.0.0.1:${port}/status`,
    ]);
    const [body, status] = stdout.split('\n');
    expect(status).toBe('431');
    expect(JSON.parse(body ?? '').value.error).toBe('invalid argument');
  });

  it('answers bytes that are not HTTP with 400 and a W3C body', async () => {
    const port = await start();
    const answer = w3cAnswer(await exchange(port, 'HELLO THERE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body.value).toMatchObject({
      error: 'invalid argument',
      message: 'the request is not valid HTTP/1.1',
    });
  });
});

describe('a client that leaves in the middle of its request body', () => {
  it('is logged once, as an ordinary event, not as a failure with a stack', async () => {
    const port = await start();
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n' +
        '{"capabilities":',
    );
    socket.destroy();
    await until(
      () => logger.events().some((event) => event === 'CLIENT_GONE' || event === 'REQUEST_FAILED'),
      'the server noticed the client left',
    );
    // Another request through the same server, so anything else the abort logs has been logged by now.
    expect((await fetch(`http://127.0.0.1:${port}/status`)).status).toBe(200);

    expect(logger.events().filter((event) => event !== 'SERVER_STARTED')).toEqual(['CLIENT_GONE']);
    expect(logger.fieldsOf('CLIENT_GONE')).toEqual([{ method: 'POST', path: '/session' }]);
    const written: string[] = [];
    new JsonLogger((line) => written.push(line)).log('CLIENT_GONE', {});
    expect(JSON.parse(written[0] ?? '').level).toBe('info');
  });
});
