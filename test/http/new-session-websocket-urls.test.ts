/** The WebSocket URLs of a new session's answer (webSocketUrl, se:cdp) rewritten to reach the grid, not the browser. */
import { describe, expect, it } from 'vitest';
import { created, fakeGridPerTest, postSession, W3C_CHROME } from '../support/fake-grid';

const start = fakeGridPerTest();

describe('POST /session: WebSocket URLs', () => {
  const BROWSER_CAPS = {
    webSocketUrl: 'ws://127.0.0.1:9222/session/inside',
    'se:cdp': 'ws://127.0.0.1:9222/devtools/browser/abc',
  };

  it('points webSocketUrl and se:cdp at the grid’s own host', async () => {
    const grid = start({ launcher: { capabilities: BROWSER_CAPS } });
    const body = await created(await postSession(grid, W3C_CHROME, { host: 'grid.test:4444' }));
    const id = body.value.sessionId;
    expect(body.value.capabilities.webSocketUrl).toBe(`ws://grid.test:4444/session/${id}`);
    expect(body.value.capabilities['se:cdp']).toBe(`ws://grid.test:4444/session/${id}/se/cdp`);
    expect(body.value.capabilities['se:cdpVersion']).toBe('156.0.7000.1');
  });

  it('keeps the path after the session of a Selenium Grid 4 hub’s or node’s BiDi URL (/se/bidi)', async () => {
    const grid = start({
      launcher: { capabilities: { webSocketUrl: 'ws://10.0.0.7:4444/session/0a59fa1b/se/bidi' } },
    });
    const body = await created(await postSession(grid, W3C_CHROME, { host: 'grid.test:4444' }));
    const id = body.value.sessionId;
    expect(body.value.capabilities.webSocketUrl).toBe(`ws://grid.test:4444/session/${id}/se/bidi`);
  });

  it('uses the request URL’s host when there is no Host header', async () => {
    const grid = start({ launcher: { capabilities: BROWSER_CAPS } });
    const body = await created(await postSession(grid, W3C_CHROME));
    expect(body.value.capabilities.webSocketUrl).toBe(`ws://localhost/session/${body.value.sessionId}`);
  });

  it('honours X-Forwarded-Proto and X-Forwarded-Host from a TLS-terminating proxy', async () => {
    const grid = start({ launcher: { capabilities: BROWSER_CAPS } });
    const body = await created(
      await postSession(grid, W3C_CHROME, {
        host: 'internal:4444',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'grid.example.test, proxy.internal',
      }),
    );
    const id = body.value.sessionId;
    expect(body.value.capabilities.webSocketUrl).toBe(`wss://grid.example.test/session/${id}`);
    expect(body.value.capabilities['se:cdp']).toBe(`wss://grid.example.test/session/${id}/se/cdp`);
  });

  it('keeps /wd/hub in the rewritten URLs when the client used it', async () => {
    const grid = start({ launcher: { capabilities: BROWSER_CAPS } });
    const body = await created(
      await postSession(
        grid,
        W3C_CHROME,
        { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'grid.example.test' },
        '/wd/hub',
      ),
    );
    const id = body.value.sessionId;
    expect(body.value.capabilities.webSocketUrl).toBe(`wss://grid.example.test/wd/hub/session/${id}`);
    expect(body.value.capabilities['se:cdp']).toBe(`wss://grid.example.test/wd/hub/session/${id}/se/cdp`);
  });

  it('prefers the configured public URL', async () => {
    const grid = start({
      config: { publicUrl: 'https://grid.example.test/' },
      launcher: { capabilities: BROWSER_CAPS },
    });
    const body = await created(await postSession(grid, W3C_CHROME, { host: 'internal:4444' }));
    expect(body.value.capabilities.webSocketUrl).toBe(
      `wss://grid.example.test/session/${body.value.sessionId}`,
    );
  });

  it('leaves no address inside the browser network in the answer', async () => {
    const grid = start({ launcher: { capabilities: BROWSER_CAPS } });
    const response = await postSession(grid, W3C_CHROME, { host: 'grid.test' });
    const text = await response.text();
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(grid.launcher.upstream().address);
  });

  it('leaves webSocketUrl out when the browser did not offer one', async () => {
    const grid = start();
    const body = await created(await postSession(grid, W3C_CHROME));
    expect(body.value.capabilities).not.toHaveProperty('webSocketUrl');
  });
});
