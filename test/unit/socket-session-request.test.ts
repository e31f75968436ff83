import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import {
  type SocketSessionRequest,
  socketSessionRequest,
  withCatalogBrowser,
} from '../../functions/core/socket-session-request';

const browsers = new Set(['chrome', 'chromium', 'firefox']);

function asked(path: string, headers: Record<string, string> = {}): SocketSessionRequest | undefined {
  const url = new URL(path, 'ws://grid');
  return socketSessionRequest(
    { pathname: url.pathname, query: url.searchParams, header: (name) => headers[name] },
    (name) => browsers.has(name),
  );
}

function refusal(path: string, headers: Record<string, string> = {}): WebDriverError {
  try {
    asked(path, headers);
  } catch (error) {
    if (error instanceof WebDriverError) return error;
    throw error;
  }
  throw new Error(`${path} was not refused`);
}

const CLIENT_1_65 = { 'user-agent': 'Playwright/1.65.1 (x64; debian 12) node/20.19' };

describe('what a WebSocket that is a session asks for', () => {
  it("reads Moon's /devtools/{browser}/{version} as a CDP session of that browser", () => {
    expect(asked('/devtools/chrome/146.0?name=login')).toEqual({
      protocol: 'cdp',
      browserName: 'chrome',
      browserVersion: '146.0',
      capabilities: {
        browserName: 'chrome',
        browserVersion: '146.0',
        'gridgate:options': { protocol: 'cdp' },
        'se:name': 'login',
      },
    });
  });

  it('leaves /devtools/{session ID} to the hub sessions it names (Selenoid)', () => {
    expect(asked('/devtools/AQAAAAEAAAAAZm9vYmFy/page/1')).toBeUndefined();
    expect(asked('/devtools/AQAAAAEAAAAAZm9vYmFy')).toBeUndefined();
  });

  it("reads Browserless's root and /chromium as CDP sessions of Chromium", () => {
    expect(asked('/?token=a:b')).toMatchObject({ protocol: 'cdp', browserName: 'chromium' });
    expect(asked('/chromium')).toMatchObject({ protocol: 'cdp', browserName: 'chromium' });
  });

  it("reads Moon's, selenosis's and Browserless's Playwright paths, the client's version from its User-Agent", () => {
    for (const path of [
      '/playwright/chromium/playwright-1.65',
      '/playwright/chromium/1.65.0',
      '/chromium/playwright',
    ]) {
      expect(asked(path, CLIENT_1_65)).toMatchObject({
        protocol: 'playwright',
        browserName: 'chromium',
        playwrightVersion: '1.65.1',
      });
    }
  });

  it("takes the browser from ?browser= over x-playwright-browser, as Playwright's own server does", () => {
    const headers = { ...CLIENT_1_65, 'x-playwright-browser': 'firefox' };
    expect(asked('/playwright?browser=chrome', headers)).toMatchObject({ browserName: 'chrome' });
    expect(refusal('/playwright', headers).code).toBe('session not created');
  });

  it('refuses a path version of another major.minor than the client with 428, as Playwright does', () => {
    const error = refusal('/playwright/chromium/playwright-1.64', CLIENT_1_65);
    expect(error.status).toBe(428);
    expect(error.message).toContain('v1.64');
    expect(error.message).toContain('v1.65');
  });

  it("turns Moon's options into the session's capabilities, and refuses malformed ones", () => {
    expect(
      asked('/playwright/chromium?enableVideo=true&arg=--lang=de&screenResolution=1280x720x24'),
    ).toMatchObject({
      capabilities: {
        browserName: 'chromium',
        'se:recordVideo': true,
        'goog:chromeOptions': { args: ['--lang=de', '--window-size=1280,720'] },
      },
    });
    expect(refusal('/playwright/chromium?enableVideo=yes').code).toBe('invalid argument');
    expect(refusal('/playwright/chromium?screenResolution=big').code).toBe('invalid argument');
    expect(refusal('/playwright/chromium/latest').code).toBe('invalid argument');
  });

  it("reads the client's exposeNetwork from x-playwright-proxy, ?proxy= overriding it, as Playwright's server", () => {
    const header = { ...CLIENT_1_65, 'x-playwright-proxy': '<loopback>' };
    expect(asked('/playwright/chromium', header)?.exposedNetwork?.pattern).toBe('<loopback>');
    expect(asked('/playwright/chromium?proxy=localhost:3000', header)?.exposedNetwork?.pattern).toBe(
      'localhost:3000',
    );
    // Every Playwright client sends the header, empty without the option.
    expect(asked('/playwright/chromium', { ...CLIENT_1_65, 'x-playwright-proxy': '' })?.exposedNetwork).toBe(
      undefined,
    );
    expect(refusal('/playwright/chromium?proxy=:3000').code).toBe('invalid argument');
  });

  it('is no session for other paths', () => {
    expect(asked('/session/abc/se/cdp')).toBeUndefined();
    expect(asked('/ui/api/sessions/abc/vnc/websockify')).toBeUndefined();
  });

  it("names the catalog's Chromium for a client that says chromium where the catalog says only chrome", () => {
    const playwright = asked('/playwright/chromium?name=hub', CLIENT_1_65) as SocketSessionRequest;
    const onHub = withCatalogBrowser(playwright, { chrome: { aliases: [] }, firefox: { aliases: [] } });
    expect(onHub.browserName).toBe('chrome');
    expect(onHub.capabilities).toEqual({
      browserName: 'chrome',
      'gridgate:options': { protocol: 'playwright' },
      'se:name': 'hub',
    });
    // A name the catalog has (or aliases) stays; a browser it lacks is left for POST /session to refuse.
    expect(withCatalogBrowser(playwright, { chromium: { aliases: [] } })).toBe(playwright);
    expect(withCatalogBrowser(playwright, { chrome: { aliases: ['chromium'] } }).browserName).toBe('chrome');
    const edge = { ...playwright, browserName: 'msedge', capabilities: { browserName: 'msedge' } };
    expect(withCatalogBrowser(edge, { chrome: { aliases: [] } })).toBe(edge);
    expect(withCatalogBrowser(playwright, { firefox: { aliases: [] } })).toBe(playwright);
  });
});
