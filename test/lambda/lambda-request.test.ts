/** Lambda HTTP events (REST payload 1.0, function URL payload 2.0) turned into web Requests. */
import { describe, expect, it } from 'vitest';
import { toRequest } from '../../functions/servers/lambda/lambda-request';
import { functionUrlEvent, restEvent } from './lambda-events';

const signal = new AbortController().signal;

describe('a REST proxy event (payload 1.0)', () => {
  it('keeps every value of a repeated header', () => {
    const event = restEvent({ method: 'GET', path: '/status' });
    event.multiValueHeaders['X-Colour'] = ['red', 'blue'];
    event.headers['X-Colour'] = 'blue';
    expect(toRequest(event, signal).headers.get('x-colour')).toBe('red, blue');
  });

  it('builds the URL from the domain, the path below the API and every query value', () => {
    const event = restEvent(
      { method: 'GET', path: '/wd/hub/status', query: { q: ['a b', 'c&d'] } },
      {
        pathPrefix: '/prod',
      },
    );
    expect(toRequest(event, signal).url).toBe(
      'https://r4nd0m1d.execute-api.us-east-1.amazonaws.com/wd/hub/status?q=a+b&q=c%26d',
    );
  });

  it('passes header text beyond Latin-1 on as its UTF-8 bytes', () => {
    const event = restEvent({ method: 'GET', path: '/status', headers: { 'X-Name': 'Zoë ✓' } });
    const value = toRequest(event, signal).headers.get('x-name') as string;
    expect(Buffer.from(value, 'latin1').toString('utf8')).toBe('Zoë ✓');
  });

  it('decodes a base64 body and gives its real length', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
    const event = restEvent({ method: 'POST', path: '/session/x/se/file', body: bytes, base64: true });
    event.multiValueHeaders['Transfer-Encoding'] = ['chunked'];
    const request = toRequest(event, signal);
    expect(Buffer.from(await request.arrayBuffer())).toEqual(bytes);
    expect(request.headers.get('content-length')).toBe('6');
    expect(request.headers.has('transfer-encoding')).toBe(false);
  });

  it('drops a body sent with GET, which a web Request cannot carry', () => {
    const request = toRequest(restEvent({ method: 'GET', path: '/status', body: '{}' }), signal);
    expect(request.body).toBeNull();
    expect(request.headers.has('content-length')).toBe(false);
  });

  it('keeps percent signs in a path parameter API Gateway decoded', () => {
    const event = restEvent({ method: 'GET', path: '/session/x/cookie/100%25' });
    expect(new URL(toRequest(event, signal).url).pathname).toBe('/session/x/cookie/100%25');
  });

  it('follows the client through the signal it is given', () => {
    const client = new AbortController();
    const request = toRequest(restEvent({ method: 'GET', path: '/status' }), client.signal);
    client.abort();
    expect(request.signal.aborted).toBe(true);
  });
});

describe('a function URL event (payload 2.0)', () => {
  it('puts the cookies list back into one Cookie header', () => {
    const event = functionUrlEvent({ method: 'GET', path: '/status' });
    event.cookies = ['a=1', 'b=2'];
    expect(toRequest(event, signal).headers.get('cookie')).toBe('a=1; b=2');
  });

  it('uses the raw path and query string as the client sent them', () => {
    const event = functionUrlEvent({ method: 'GET', path: '/session/a%2Fb/url' });
    event.rawQueryString = 'x=%20y&x=z';
    expect(toRequest(event, signal).url).toBe(
      'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws/session/a%2Fb/url?x=%20y&x=z',
    );
  });

  it("drops a named stage from the path (an HTTP API's stage)", () => {
    const event = functionUrlEvent({ method: 'GET', path: '/live/status' });
    event.requestContext.stage = 'live';
    expect(new URL(toRequest(event, signal).url).pathname).toBe('/status');
  });

  it('refuses a header value no HTTP message can carry', () => {
    const event = functionUrlEvent({ method: 'GET', path: '/status', headers: { 'x-bad': 'a\nb' } });
    expect(() => toRequest(event, signal)).toThrow(TypeError);
  });
});
