/** Where a pool's browsers may live: a decoded session address outside it is never contacted (no SSRF). */
import type { PoolConfig } from './config';
import { configTraitsOf } from './config-traits-by-kind';
import type { UpstreamEndpoint } from './upstream-endpoint';

export function addressAllowed(pool: PoolConfig, address: string): boolean {
  return configTraitsOf(pool).addressAllowed(pool, address);
}

/** The endpoint of a session at `address` in `pool`: a browser directly, a hub at its URL. */
export function upstreamEndpoint(pool: PoolConfig | undefined, address: string): UpstreamEndpoint {
  if (!pool) return { origin: `http://${address}`, basePath: '' };
  return configTraitsOf(pool).upstreamEndpoint(pool, address);
}

/** Whether `origin` (scheme://host:port) is one of the config's hubs. */
export function isHubOrigin(pools: Record<string, PoolConfig>, origin: string): boolean {
  return Object.values(pools).some(
    (pool) => configTraitsOf(pool).sharedEndpoint?.(pool).endpoint.origin === origin,
  );
}
