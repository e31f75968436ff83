/**
 * A Playwright client's `exposeNetwork` (its `x-playwright-proxy` header, `?proxy=` in the URL): the hosts
 * whose connections the session's browser makes through the client's own network, and the proxy bypass rules
 * that keep every other connection the browser's own. The pattern is read as Playwright reads it
 * (packages/utils/socksProxy.ts, parsePattern), because the client holds its end of the tunnel to the same
 * pattern: comma-separated tokens, each a host (`*` wildcards, a leading `.` for a domain's subdomains), an IP
 * literal (matched as such), `*`, or `<loopback>`, with an optional `:port`.
 */
import { invalidArgument } from './errors';

export interface ExposedNetwork {
  /** The pattern as the client sent it. */
  pattern: string;
  /** Whether a connection to host:port (as the browser names it to its proxy) goes to the client. */
  exposes(host: string, port: number): boolean;
  /**
   * Chromium's proxy bypass rules for the browser's contexts: the connections that never reach the tunnel's
   * proxy and stay the browser's own. Chromium cannot bypass "all but these hosts", only all but loopback
   * (`<-loopback>` after `*`), so a pattern of loopback tokens alone sends only loopback to the proxy; any
   * other pattern sends everything there, where what it does not expose is refused.
   */
  proxyBypassList: string;
}

type Matcher = (host: string, port: number) => boolean;

const LOOPBACK = '<loopback>';
const TOKEN = /^(.*?)(?::(\d+))?$/;

/** The client's pattern, read; undefined for none (Playwright's clients send an empty header then). */
export function exposedNetwork(pattern: string | undefined): ExposedNetwork | undefined {
  if (!pattern) return undefined;
  const tokens = pattern.split(',').map(tokenOf);
  const matchers = tokens.map(({ host, port }) => matcherOf(host, port));
  const loopbackOnly = tokens.every(({ host }) => host === LOOPBACK);
  return {
    pattern,
    exposes: (host, port) => matchers.some((matches) => matches(host, port)),
    // Rules are Chromium's (net/docs/proxy.md): later rules win, and `<-loopback>` takes loopback out of
    // the bypass, which Chromium otherwise applies to it implicitly.
    proxyBypassList: loopbackOnly ? '*,<-loopback>' : '<-loopback>',
  };
}

function tokenOf(token: string): { host: string; port: number | undefined } {
  const [, host = '', port] = TOKEN.exec(token) ?? [];
  if (!host)
    throw invalidArgument(`exposeNetwork "${token}" names no host (as in "<loopback>,*.example.com")`);
  return { host, port: port === undefined ? undefined : Number(port) };
}

function matcherOf(tokenHost: string, tokenPort: number | undefined): Matcher {
  const portMatches = (port: number) => tokenPort === undefined || tokenPort === port;
  if (tokenHost === LOOPBACK) return (host, port) => portMatches(port) && isLoopbackName(host);
  if (tokenHost === '*') return (_host, port) => portMatches(port);
  if (isIpLiteral(tokenHost)) return (host, port) => host === tokenHost && portMatches(port);
  const wildcard = wildcardOf(tokenHost.startsWith('.') ? `*${tokenHost}` : tokenHost);
  // A host-name token never matches an IP literal, however wide its wildcard.
  return (host, port) => portMatches(port) && !isIpLiteral(host) && wildcard.test(host);
}

/** Playwright's loopback: its names and the two loopback literals it knows. */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]';
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function isIpLiteral(host: string): boolean {
  return IPV4.test(host) || (host.includes(':') && /^[\da-f:.]+$/i.test(host));
}

function wildcardOf(pattern: string): RegExp {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}
