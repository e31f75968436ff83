/** Where a pool's browsers may live: a decoded session address outside it is never contacted (no SSRF). */
import type { PoolConfig } from './config';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d{1,5}$/;

export function addressAllowed(pool: PoolConfig, address: string): boolean {
  switch (pool.kind) {
    case 'local':
      return LOOPBACK.test(address);
    case 'hub':
      // A hub pool's sessions live on that hub and nowhere else.
      return address === hubAddress(pool.url);
  }
}

/** How to reach a session's remote end: origin, base path, and the credentials it expects. */
export interface UpstreamEndpoint {
  /** scheme://host:port */
  origin: string;
  /** Prefix before /session, e.g. "/wd/hub", or "". */
  basePath: string;
  /** The Authorization header for this upstream; never the client's. */
  authorization?: string;
}

/** The endpoint of a session at `address` in `pool`: a local browser directly, a hub at its URL. */
export function upstreamEndpoint(pool: PoolConfig | undefined, address: string): UpstreamEndpoint {
  if (pool?.kind !== 'hub') return { origin: `http://${address}`, basePath: '' };
  const url = new URL(pool.url);
  return {
    origin: `${url.protocol}//${hubAddress(pool.url)}`,
    basePath: url.pathname.replace(/\/+$/, ''),
    authorization:
      pool.username !== undefined
        ? `Basic ${Buffer.from(`${pool.username}:${pool.password ?? ''}`).toString('base64')}`
        : undefined,
  };
}

/** host:port of a hub URL, the default port filled in ("https://hub" → "hub:443"). */
export function hubAddress(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.hostname}:${port}`;
}
