import { describe, expect, it } from 'vitest';
import {
  crossSiteRefusal,
  isLoopbackAddress,
  nonJsonRefusal,
  type OriginPolicy,
  type RequestSignals,
} from '../../functions/http/web-page-requests';

/** Behind a front door that answers only its own names (API Gateway): any host. */
const OPEN: OriginPolicy = { allowedOrigins: [], allowedHosts: [], colorDomains: [], knownHostsOnly: false };
/** The Node server: browsers must name it by a name it knows. */
const KNOWN: OriginPolicy = { ...OPEN, knownHostsOnly: true };
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
    expect(refused(post({ host: 'grid.example.com' }), KNOWN)).toBeUndefined();
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
        ...KNOWN,
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

  it('refuses a page at a name rebound to the grid (DNS rebinding): its Origin matches the Host it names', () => {
    const rebound = post({
      origin: 'http://rebind.attacker.example:4444',
      host: 'rebind.attacker.example:4444',
      fetchSite: 'same-origin',
    });
    expect(refused(rebound)).toBeUndefined();
    const refusal = crossSiteRefusal(rebound, KNOWN);
    expect(refusal?.status).toBe(403);
    expect(refusal?.code).toBe('invalid argument');
    expect(refusal?.message).toBe(
      "web pages may use this grid only at a name it knows, not rebind.attacker.example:4444: a page at another name may be another site's, its name pointed at this grid (DNS rebinding); open it at localhost or its IP address, or name it in publicUrl or allowedHosts",
    );
    // Through a proxy in front, the name the browser used is the forwarded one.
    expect(
      refused(
        post({
          origin: 'http://rebind.attacker.example',
          host: '127.0.0.1:4444',
          forwardedHost: 'rebind.attacker.example',
        }),
        KNOWN,
      ),
    ).toContain('not rebind.attacker.example:');
  });

  it('refuses every browser request at an unknown name, navigations and Fetch Metadata alone included', () => {
    const host = 'grid.example.com:4444';
    for (const signals of [
      { method: 'GET', path: '/ui', fetchSite: 'none', fetchMode: 'navigate' },
      { method: 'GET', path: '/ui/api/overview', fetchSite: 'same-origin' },
      { origin: `http://${host}` },
    ]) {
      expect(refused(post({ host, ...signals }), KNOWN), JSON.stringify(signals)).toContain('DNS rebinding');
    }
  });

  it('checks the name of every request for the status page, which a page over plain HTTP sends bare', () => {
    // What Chromium sends for a page's same-origin GET over http: no Origin, no Sec-Fetch-*.
    const bare = { method: 'GET', host: 'rebind.attacker.example:4444', contentType: undefined };
    for (const path of ['/', '/ui', '/ui/api/overview', '/ui/api/sessions/abc/vnc/websockify']) {
      expect(refused(post({ ...bare, path }), KNOWN), path).toContain('DNS rebinding');
      expect(refused(post({ ...bare, path, host: '10.0.0.5:4444' }), KNOWN), path).toBeUndefined();
    }
    // A WebDriver client at a name: its GETs carry nothing either, and need a session ID a page cannot learn.
    for (const path of ['/session/abc/url', '/wd/hub/session/abc/title', '/quota', '/uix']) {
      expect(refused(post({ ...bare, path }), KNOWN), path).toBeUndefined();
    }
  });

  it('lets browsers in at localhost and at any IP address, which no DNS answer rebinds', () => {
    for (const host of [
      'localhost:4444',
      '127.0.0.1:4444',
      '[::1]:4444',
      '10.0.0.5:4444',
      '192.168.1.20',
      '[fd00::5]:4444',
    ]) {
      const own = post({ origin: `http://${host}`, host, fetchSite: 'same-origin' });
      expect(refused(own, KNOWN), host).toBeUndefined();
    }
    // A name that ends in digits is still a name.
    expect(refused(post({ origin: 'http://1.2.3.4.nip.io', host: '1.2.3.4.nip.io' }), KNOWN)).toContain(
      'DNS rebinding',
    );
  });

  it('lets browsers in at publicUrl’s host, allowedHosts and names under a colour base domain, on any port', () => {
    const policy: OriginPolicy = {
      ...KNOWN,
      publicUrl: 'https://grid.example.com/',
      allowedHosts: ['grid.internal', '.ci.example.net'],
      colorDomains: ['colors.example.org'],
    };
    for (const host of [
      'grid.example.com',
      'grid.example.com:4444',
      'grid.internal:4444',
      'ci.example.net',
      'a.b.ci.example.net:4444',
      'green.colors.example.org',
      'GRID.Internal:4444',
    ]) {
      expect(refused(post({ origin: `http://${host}`, host }), policy), host).toBeUndefined();
    }
    for (const host of [
      'other.grid.internal',
      'xci.example.net',
      'colors.example.org',
      'grid.example.com.evil',
    ]) {
      expect(refused(post({ origin: `http://${host}`, host }), policy), host).toContain('DNS rebinding');
    }
  });

  it('lets a configured other site’s page in at any name, and WebDriver clients at any name', () => {
    const policy = { ...KNOWN, allowedOrigins: ['https://ci.example.com'] };
    expect(
      refused(
        post({ origin: 'https://ci.example.com', host: 'grid.example.com:4444', fetchSite: 'cross-site' }),
        policy,
      ),
    ).toBeUndefined();
    expect(refused(post({ host: 'rebind.attacker.example:4444' }), KNOWN)).toBeUndefined();
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
