/**
 * The one HTTP client for browsers: keep-alive pools per browser, kept small because chromedriver
 * listens with a backlog of 5; a hub serves every session of its pool, so it gets more.
 */
import { Agent, Pool } from 'undici';

// One browser runs one session: its commands come one at a time, and chromedriver's backlog is 5.
const BROWSER_CONNECTIONS = 4;
// A hub (Selenium Grid, ggr, …) carries all its pool's sessions: with a browser's 4, one slow page
// load in four sessions would hold every other session's commands back.
const HUB_CONNECTIONS = 64;

/** `isHub(origin)`: whether an origin is a hub's (read when the first request to it goes out). */
export function createUpstreamAgent(isHub: (origin: string) => boolean = () => false): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    // A command can legitimately take minutes (page loads default to 300 s in W3C §9.1).
    headersTimeout: 330_000,
    bodyTimeout: 330_000,
    factory: (origin, options) =>
      new Pool(origin, {
        ...options,
        connections: isHub(String(origin)) ? HUB_CONNECTIONS : BROWSER_CONNECTIONS,
      }),
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

// The client's Host (chromedriver refuses any but its own; undici sets it), and the client's
// credentials and cookies for the grid, which are none of the browser's business.
const NOT_FOR_BROWSERS = new Set(['host', 'authorization', 'cookie']);
const NONE = new Set<string>();

/** Headers for the hop to the browser. */
export function upstreamRequestHeaders(
  headers: Record<string, HeaderValue>,
): Record<string, string | string[]> {
  return forwardable(headers, NOT_FOR_BROWSERS);
}

/** Headers for the hop back to the client. */
export function clientResponseHeaders(
  headers: Record<string, HeaderValue>,
): Record<string, string | string[]> {
  return forwardable(headers, NONE);
}

/** Node-style headers (a value may be a list) as a web Headers object, for a web Response. */
export function webResponseHeaders(headers: Record<string, string | string[]>): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : [value]) out.append(name, item);
  }
  return out;
}

function forwardable(
  headers: Record<string, HeaderValue>,
  dropped: Set<string>,
): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || !passes(lower, named, dropped)) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * The client's headers for the hop to the browser, from Node's raw list (name, value, name, value…):
 * the same rules as upstreamRequestHeaders, with the hub's own credentials, if any, in place of the client's.
 */
export function rawUpstreamRequestHeaders(raw: string[], authorization: string | undefined): string[] {
  const named = connectionTokens(rawConnection(raw));
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (passes(name.toLowerCase(), named, NOT_FOR_BROWSERS)) out.push(name, raw[i + 1] as string);
  }
  if (authorization) out.push('authorization', authorization);
  return out;
}

/** The browser's headers for the hop back to the client, from undici's raw list: as clientResponseHeaders. */
export function rawClientResponseHeaders(raw: Buffer[]): string[] {
  const strings = raw.map((bytes) => bytes.toString('latin1'));
  const named = connectionTokens(rawConnection(strings));
  const out: string[] = [];
  for (let i = 0; i < strings.length; i += 2) {
    const name = strings[i] as string;
    if (passes(name.toLowerCase(), named, NONE)) out.push(name, strings[i + 1] as string);
  }
  return out;
}

function passes(lower: string, named: Set<string>, dropped: Set<string>): boolean {
  return !HOP_BY_HOP.has(lower) && !named.has(lower) && !dropped.has(lower);
}

/** The Connection header's values in a raw list, joined as Node joins them. */
function rawConnection(raw: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).length === 10 && (raw[i] as string).toLowerCase() === 'connection') {
      value = value === undefined ? (raw[i + 1] as string) : `${value}, ${raw[i + 1]}`;
    }
  }
  return value;
}

function connectionTokens(value: HeaderValue): Set<string> {
  // The usual case on the command path: nothing, or only keep-alive/close, which name no header to drop.
  if (value === undefined || value === 'keep-alive' || value === 'close') return NONE;
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}
