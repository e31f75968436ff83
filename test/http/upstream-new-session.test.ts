import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamEndpoint } from '../../functions/core/browser-network';
import { WebDriverError } from '../../functions/core/errors';
import { LaunchFailure } from '../../functions/core/host-choice';
import type { UpstreamNewSession } from '../../functions/core/upstream-webdriver';
import { requestNewSession } from '../../functions/webdriver-client/upstream-new-session';
import { type FakeAnswer, FakeUpstream, jsonAnswer, type RecordedRequest } from '../support/fakes';

const agent = new Agent();
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** A browser or hub answering the new-session request with `answer`, and the exchange with it. */
async function exchange(
  answer: (request: RecordedRequest) => FakeAnswer,
  request: Partial<UpstreamNewSession> = {},
) {
  upstream = await FakeUpstream.start({ newSession: answer });
  return requestNewSession(agent, {
    endpoint: upstreamEndpoint(undefined, upstream.address),
    capabilities: { browserName: 'chrome' },
    hub: false,
    noWait: false,
    signal: new AbortController().signal,
    ...request,
  });
}

const W3C_ANSWER = jsonAnswer(200, { value: { sessionId: 'abc', capabilities: { browserName: 'chrome' } } });

describe('the new-session exchange', () => {
  it('sends the W3C request with the charset and no compression asked for', async () => {
    const created = await exchange(() => W3C_ANSWER);
    const [sent] = upstream?.requests ?? [];
    expect(sent).toMatchObject({ method: 'POST', path: '/session' });
    expect(sent?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(sent?.headers['accept-encoding']).toBe('identity');
    expect(sent?.headers).not.toHaveProperty('x-selenoid-no-wait');
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      capabilities: { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{}] },
    });
    expect(created).toEqual({ sessionId: 'abc', capabilities: { browserName: 'chrome' } });
  });

  it('asks a hub to refuse at once when another pool is left (an empty X-Selenoid-No-Wait)', async () => {
    await exchange(() => W3C_ANSWER, { hub: true, noWait: true });
    expect(upstream?.requests[0]?.headers['x-selenoid-no-wait']).toBe('');
  });

  it('reads an answer in gzip although it asked for none', async () => {
    const body = gzipSync(
      JSON.stringify({ value: { sessionId: 'gz', capabilities: { browserName: 'chrome' } } }),
    );
    // A proxy in front of a hub that compresses regardless (ggr #294): bytes, so a server of its own.
    const server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const created = await requestNewSession(agent, {
        endpoint: upstreamEndpoint(undefined, `127.0.0.1:${(server.address() as AddressInfo).port}`),
        capabilities: {},
        hub: true,
        noWait: false,
        signal: new AbortController().signal,
      });
      expect(created).toEqual({ sessionId: 'gz', capabilities: { browserName: 'chrome' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('takes a JSON Wire hub’s answer (the ID at the top level) only from a hub', async () => {
    const jsonWire = () => jsonAnswer(200, { sessionId: 'old', status: 0, value: { browserName: 'chrome' } });
    expect(await exchange(jsonWire, { hub: true })).toEqual({
      sessionId: 'old',
      capabilities: { browserName: 'chrome' },
    });
    await upstream?.close();
    await expect(exchange(jsonWire)).rejects.toMatchObject({ status: 502, code: 'unknown error' });
  });

  it('takes a hub’s bare redirect to its new session', async () => {
    const redirect = () => ({ status: 303, headers: { location: '/wd/hub/session/xyz' }, body: '' });
    expect(await exchange(redirect, { hub: true })).toEqual({ sessionId: 'xyz', capabilities: {} });
  });

  it('passes on a refusal of the capabilities as invalid argument, in the browser’s words', async () => {
    const refusal = () =>
      jsonAnswer(400, { value: { error: 'invalid argument', message: 'unrecognized capability: foo' } });
    await expect(exchange(refusal)).rejects.toMatchObject({
      code: 'invalid argument',
      message: 'unrecognized capability: foo',
    });
  });

  it('calls any other refusal the browser’s, so another pool may be tried', async () => {
    const busy = () => jsonAnswer(500, { value: { error: 'session not created', message: 'no slots' } });
    const error = await exchange(busy).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LaunchFailure);
    expect(error).toMatchObject({
      outcome: 'refused',
      hostError: 'no slots',
      message: 'the browser refused the session (500): no slots',
    });
  });

  it('calls an answer that is not JSON unreachable', async () => {
    const html = () => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<h1>Bad gateway</h1>',
    });
    const error = await exchange(html).catch((e: unknown) => e);
    expect(error).toMatchObject({ outcome: 'unreachable', message: expect.stringContaining('with no JSON') });
  });

  it('calls a browser that cannot be reached unreachable', async () => {
    upstream = await FakeUpstream.start();
    const address = upstream.address;
    await upstream.close();
    const error = await requestNewSession(agent, {
      endpoint: upstreamEndpoint(undefined, address),
      capabilities: {},
      hub: false,
      noWait: false,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LaunchFailure);
    expect(error).toMatchObject({ outcome: 'unreachable' });
  });

  it('deletes the session a malformed answer names, then reports the protocol error', async () => {
    const malformed = () => jsonAnswer(200, { value: { sessionId: 'stray' } });
    const error = await exchange(malformed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebDriverError);
    expect(error).toMatchObject({ status: 502 });
    expect(upstream?.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /session',
      'DELETE /session/stray',
    ]);
  });
});
