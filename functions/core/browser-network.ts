/** Where a pool's browsers may live: a decoded session address outside it is never contacted (no SSRF). */
import { BlockList, isIPv4 } from 'node:net';
import type { PoolConfig } from './config';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d{1,5}$/;

export function addressAllowed(pool: PoolConfig, address: string): boolean {
  switch (pool.kind) {
    case 'local':
    // A container's WebDriver port is published on this machine's loopback (pools/container/).
    case 'container':
      return LOOPBACK.test(address);
    case 'hub':
      // A hub pool's sessions live on that hub and nowhere else.
      return address === hubEndpointOf(pool).address;
    case 'ecs':
    case 'eks':
      return inNetworks(pool.networks ?? [], pool.port, address);
  }
}

/** An IPv4 host:port inside one of the CIDR blocks, on the given port. */
function inNetworks(networks: string[], port: number, address: string): boolean {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(address);
  if (!match || Number(match[2]) !== port || !isIPv4(match[1] as string)) return false;
  return blockListOf(networks).check(match[1] as string, 'ipv4');
}

// Built once per networks array (configs are replaced whole on reload, never edited).
const blockLists = new WeakMap<string[], BlockList>();
function blockListOf(networks: string[]): BlockList {
  let list = blockLists.get(networks);
  if (!list) {
    list = new BlockList();
    for (const block of networks) {
      const [network, prefix] = block.split('/') as [string, string];
      list.addSubnet(network, Number(prefix), 'ipv4');
    }
    blockLists.set(networks, list);
  }
  return list;
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
  return hubEndpointOf(pool).endpoint;
}

/** Whether `origin` (scheme://host:port) is one of the config's hubs. */
export function isHubOrigin(pools: Record<string, PoolConfig>, origin: string): boolean {
  return Object.values(pools).some(
    (pool) => pool.kind === 'hub' && hubEndpointOf(pool).endpoint.origin === origin,
  );
}

type HubPool = Extract<PoolConfig, { kind: 'hub' }>;

// Every command to a hub session needs its hub's address and endpoint: parsed once per pool object
// (configs are replaced whole on reload, never edited).
const hubEndpoints = new WeakMap<HubPool, { address: string; endpoint: UpstreamEndpoint }>();
function hubEndpointOf(pool: HubPool): { address: string; endpoint: UpstreamEndpoint } {
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
