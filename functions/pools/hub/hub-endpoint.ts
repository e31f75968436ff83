/**
 * Where a hub pool's sessions live: its address and the endpoint (origin, base path, credentials) they are
 * reached at. Pure: the hub kind's config side (hub-pool-config.ts), which core reads, is built on it.
 */
import type { SharedEndpoint, UpstreamEndpoint } from '../../core/upstream-endpoint';

/**
 * What of a hub pool's config says where its hub is: its URL and the credentials sent there. Named by shape, not
 * as the parsed pool, since the hub kind's config module (hub-pool-config.ts) builds on it.
 */
export interface HubAddressing {
  url: string;
  username?: string;
  password?: string;
}

// Every command to a hub session needs its hub's address and endpoint: parsed once per pool object
// (configs are replaced whole on reload, never edited).
const hubEndpoints = new WeakMap<HubAddressing, SharedEndpoint>();
export function hubEndpointOf(pool: HubAddressing): SharedEndpoint {
  let known = hubEndpoints.get(pool);
  if (!known) {
    const url = new URL(pool.url);
    const address = hubAddress(pool.url);
    const endpoint: UpstreamEndpoint = {
      origin: `${url.protocol}//${address}`,
      basePath: url.pathname.replace(/\/+$/, ''),
      authorization:
        pool.username !== undefined
          ? `Basic ${Buffer.from(`${pool.username}:${pool.password ?? ''}`).toString('base64')}`
          : undefined,
    };
    known = { address, endpoint: Object.freeze(endpoint) };
    hubEndpoints.set(pool, known);
  }
  return known;
}

/** host:port of a hub URL, the default port filled in ("https://hub" → "hub:443"). */
export function hubAddress(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.hostname}:${port}`;
}
