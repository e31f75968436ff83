import { describe, expect, it } from 'vitest';
import {
  crossSiteRefusal,
  isLoopbackAddress,
  nonJsonRefusal,
  type OriginPolicy,
  type RequestSignals,
} from '../../functions/http/web-page-requests';

const OPEN: OriginPolicy = { allowedOrigins: [], loopbackOnly: false };
const LOOPBACK: OriginPolicy = { allowedOrigins: [], loopbackOnly: true };
const post = (signals: Partial<RequestSignals>): RequestSignals => ({
  method: 'POST',
  path: '/session',
  host: 'localhost:4444',
  contentType: 'application/json; charset=utf-8',
  ...signals,
});
const refused = (signals: RequestSignals, policy = OPEN) => crossSiteRefusal(signals, policy)?.message;

describe('requests from web pages', () => {
  it('lets WebDriver clients in: no Origin, no Fetch Metadata, any Host', () => {
    expect(refused(post({}))).toBeUndefined();
    expect(refused(post({ host: 'grid.example.com' }), LOOPBACK)).toBeUndefined();
  });

  it('lets the grid’s own pages in: an Origin naming the host the request addressed, or the proxy in front', () => {
    expect(refused(post({ origin: 'http://localhost:4444', fetchSite: 'same-origin' }))).toBeUndefined();
    expect(
      refused(
        post({
          origin: 'https://grid.example.com',
          host: '10.0.0.5:4444',
          forwardedHost: 'grid.example.com',
        }),
      ),
    ).toBeUndefined();
    expect(
      refused(post({ origin: 'https://grid.example.com', host: '127.0.0.1:4444' }), {
        ...LOOPBACK,
        publicUrl: 'https://grid.example.com/',
      }),
    ).toBeUndefined();
  });

  it('refuses another site’s page, whatever the path, with 403', () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:8080', 'null']) {
      const refusal = crossSiteRefusal(post({ origin }), OPEN);
      expect(refusal?.status, origin).toBe(403);
      expect(refusal?.code).toBe('invalid argument');
      expect(refusal?.message).toContain(`web pages of ${origin} are refused`);
    }
    expect(
      refused(post({ method: 'DELETE', path: '/ui/api/sessions/abc', origin: 'http://evil.example' })),
    ).toBeDefined();
  });

  it('lets configured other sites in', () => {
    const policy = { ...OPEN, allowedOrigins: ['https://ci.example.com'] };
    expect(
      refused(post({ origin: 'https://ci.example.com', fetchSite: 'cross-site' }), policy),
    ).toBeUndefined();
    expect(refused(post({ origin: 'https://ci.example.com:8443' }), policy)).toBeDefined();
  });

  it('refuses what Fetch Metadata marks as another site’s, except following a link to a page', () => {
    const image = { method: 'GET', path: '/ui/api/overview', fetchMode: 'no-cors' };
    expect(refused(post({ ...image, fetchSite: 'cross-site' }))).toContain('Sec-Fetch-Site: cross-site');
    // Sites ignore ports: another port on localhost is "same-site", still not the grid's own page.
    expect(refused(post({ ...image, fetchSite: 'same-site' }))).toContain('same-site');
    expect(
      refused(post({ method: 'GET', path: '/ui', fetchSite: 'cross-site', fetchMode: 'navigate' })),
    ).toBeUndefined();
    expect(refused(post({ ...image, fetchSite: 'same-origin' }))).toBeUndefined();
    expect(refused(post({ ...image, fetchSite: 'none' }))).toBeUndefined();
  });

  it('on loopback, refuses a browser that names the grid by another name (DNS rebinding)', () => {
    const rebound = post({
      origin: 'http://rebind.example:4444',
      host: 'rebind.example:4444',
      fetchSite: 'same-origin',
    });
    expect(refused(rebound)).toBeUndefined();
    expect(refused(rebound, LOOPBACK)).toContain('listens on loopback only');
    for (const host of ['localhost:4444', '127.0.0.1:4444', '[::1]:4444']) {
      expect(refused(post({ origin: `http://${host}`, host }), LOOPBACK), host).toBeUndefined();
    }
  });
});

describe('WebDriver bodies that are not JSON', () => {
  it('refuses a POST to a WebDriver path at either root that says it is not JSON', () => {
    for (const path of ['/session', '/session/abc/url', '/wd/hub/session', '/wd/hub/session/abc/element']) {
      for (const contentType of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text/html',
      ]) {
        const refusal = nonJsonRefusal(post({ path, contentType }));
        expect(refusal?.status, `${path} ${contentType}`).toBe(400);
        expect(refusal?.code).toBe('invalid argument');
        expect(refusal?.message).toContain('must send JSON (Content-Type: application/json)');
      }
    }
  });

  it('accepts every client’s spelling of JSON, and leaves other methods and paths alone', () => {
    for (const contentType of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
    ]) {
      expect(nonJsonRefusal(post({ contentType })), contentType).toBeUndefined();
    }
    // The W3C conformance tests' client sends its JSON with no Content-Type; a page cannot without Origin.
    expect(nonJsonRefusal(post({ contentType: undefined }))).toBeUndefined();
    expect(
      nonJsonRefusal(post({ method: 'GET', path: '/session/abc/url', contentType: undefined })),
    ).toBeUndefined();
    expect(nonJsonRefusal(post({ path: '/sessions', contentType: 'text/plain' }))).toBeUndefined();
  });
});

describe('isLoopbackAddress', () => {
  it('tells loopback listen addresses from those open to the network', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', 'localhost', '::1'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['0.0.0.0', '::', '10.0.0.5', 'grid.example.com'])
      expect(isLoopbackAddress(address), address).toBe(false);
  });
});
