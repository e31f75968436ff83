/**
 * The one HTTP client for browsers: keep-alive pools per browser, kept small because chromedriver
 * listens with a backlog of 5.
 */
import { Agent, type Dispatcher } from 'undici';

export function createUpstreamAgent(): Agent {
  return new Agent({
    connections: 4,
    keepAliveTimeout: 30_000,
    // A command can legitimately take minutes (page loads default to 300 s in W3C §9.1).
    headersTimeout: 330_000,
    bodyTimeout: 330_000,
  });
}

// RFC 9110 §7.6.1: connection-specific headers are never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

type HeaderValue = string | string[] | undefined;

/**
 * Headers for the hop to the browser: hop-by-hop ones and the client's credentials to the grid
 * dropped, and Host left out so undici sets the upstream's own (chromedriver refuses any other Host).
 */
export function upstreamRequestHeaders(
  headers: Record<string, HeaderValue>,
): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    if (lower === 'host' || lower === 'authorization' || lower === 'cookie') continue;
    out[lower] = value;
  }
  return out;
}

/** Headers for the hop back to the client. */
export function clientResponseHeaders(
  headers: Record<string, HeaderValue>,
): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

function connectionTokens(value: HeaderValue): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

export type UpstreamDispatcher = Dispatcher;
