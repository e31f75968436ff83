/**
 * What the Node server answers to requests its HTTP parser refuses before any handler sees them: a W3C
 * error body with the status, not Node's bare 400/431 or nothing at all.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { type RunningGrid, startGrid } from '../../functions/entry/start-grid';
import { CollectingLogger } from '../support/fakes';
import { exchange } from '../support/raw-exchange';

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

async function start(): Promise<number> {
  const config = parseConfig({ port: 0, host: '127.0.0.1' }, { localBrowserVersion: '1' });
  grid = await startGrid(config, randomBytes(32), new CollectingLogger(), { reloadPollMs: 0 });
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
