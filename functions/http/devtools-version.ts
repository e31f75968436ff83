/**
 * `GET …/json/version` for CDP clients given an HTTP address (Puppeteer's `browserURL`, Playwright's
 * `connectOverCDP('http://…')`): they read `webSocketDebuggerUrl` there and open it, as they would a
 * Chromium's. Here it names the WebSocket that makes a fresh session (`/devtools/{browser}[/{version}]`, or
 * the root as Browserless serves it), with the query the client gave (name, token, options) kept.
 */
import type { Context } from 'hono';
import { publicWebSocketBase } from './public-url';

/** Where these answer: the root's and each `/devtools/{browser}[/{version}]`'s. */
export const DEVTOOLS_VERSION_PATHS = [
  '/json/version',
  '/devtools/:browser/json/version',
  '/devtools/:browser/:version/json/version',
] as const;

export function devtoolsVersion(c: Context, publicUrl: string | undefined) {
  const url = new URL(c.req.url);
  const socketPath = url.pathname.replace(/\/json\/version\/?$/, '') || '/';
  const base = publicWebSocketBase(c.req.raw, '', publicUrl);
  return c.json({
    Browser: 'gridgate',
    'Protocol-Version': '1.3',
    webSocketDebuggerUrl: `${base}${socketPath}${url.search}`,
  });
}
