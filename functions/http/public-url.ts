/** The address clients use to reach gridgate, for the WebSocket URLs handed back in capabilities. */
import type { Capabilities } from '../core/capabilities';

/**
 * ws:// or wss:// origin plus the base path the client used ("" or "/wd/hub"). Behind TLS-terminating
 * proxies X-Forwarded-Proto/Host say what the client saw (Selenium #15375, #17788 got this wrong).
 */
export function publicWebSocketBase(request: Request, basePath: string, configured?: string): string {
  if (configured) return `${configured.replace(/^http/, 'ws').replace(/\/$/, '')}${basePath}`;
  const url = new URL(request.url);
  const forwardedProto = firstValue(request.headers.get('x-forwarded-proto'));
  const host = firstValue(request.headers.get('x-forwarded-host')) ?? request.headers.get('host') ?? url.host;
  const secure = (forwardedProto ?? url.protocol.replace(':', '')) === 'https';
  return `${secure ? 'wss' : 'ws'}://${host}${basePath}`;
}

function firstValue(header: string | null): string | undefined {
  return header?.split(',')[0]?.trim() || undefined;
}

export interface WebSocketRewrite {
  base: string;
  token: string;
}

/** Points webSocketUrl (BiDi) and se:cdp at gridgate, which proxies them after checking the session ID. */
export function rewriteWebSocketCapabilities(
  capabilities: Capabilities,
  rewrite: WebSocketRewrite,
): Capabilities {
  const sessionUrl = `${rewrite.base}/session/${rewrite.token}`;
  const out = { ...capabilities };
  if (typeof out.webSocketUrl === 'string') out.webSocketUrl = `${sessionUrl}${bidiPath(out.webSocketUrl)}`;
  if (typeof out['se:cdp'] === 'string') {
    out['se:cdp'] = `${sessionUrl}/se/cdp`;
    out['se:cdpVersion'] ??= out.browserVersion;
  }
  return out;
}

/**
 * What follows the session in the browser's own BiDi URL, kept so the relayed socket reaches the same
 * endpoint: nothing from chromedriver (`ws://host/session/{id}`), `/se/bidi` from a Selenium Grid 4 hub or
 * node (docker-selenium's), which refuse a socket at the session's bare path with 400. Plain segments only.
 */
function bidiPath(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return '';
  }
  return /\/session\/[^/]+((?:\/[A-Za-z0-9._~-]+)*)\/?$/.exec(path)?.[1] ?? '';
}

/**
 * Capabilities that name WebSocket endpoints (BiDi, CDP, a node's VNC), which a client cannot reach
 * where gridgate cannot proxy WebSockets (behind Lambda). Without webSocketUrl, clients such as
 * WebdriverIO 9 fall back to classic WebDriver.
 */
const WEBSOCKET_CAPABILITIES = ['webSocketUrl', 'se:cdp', 'se:cdpVersion', 'se:vnc', 'se:vncLocalAddress'];

export function withoutWebSockets(capabilities: Capabilities): Capabilities {
  const out = { ...capabilities };
  for (const name of WEBSOCKET_CAPABILITIES) delete out[name];
  return out;
}
