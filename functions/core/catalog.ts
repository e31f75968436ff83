/** The catalog: which browsers, versions and platforms the config offers, and which pools serve them. */
import type { Capabilities } from './capabilities';
import type { Config, PoolConfig } from './config';

export interface CatalogMatch {
  /** The browser's name in the config (aliases resolved). */
  browserName: string;
  browserVersion: string;
  platformName: string;
  pools: PoolConfig[];
  /** The candidate capability set that matched. */
  capabilities: Capabilities;
}

// Versions that mean "whatever the default is", as clients and ggr users write them.
const DEFAULT_VERSION_WORDS = new Set(['', 'latest', 'stable']);

/** Narrows the catalog, e.g. to what one user may use. */
export interface CatalogFilter {
  version(browserName: string, version: string): boolean;
  pool(poolName: string): boolean;
}

const EVERYTHING: CatalogFilter = { version: () => true, pool: () => true };

/**
 * The first candidate (in the client's order) that some configured version serves, or undefined. With a
 * filter, only the versions and pools it lets through count, and "no version" picks among those.
 */
export function matchCatalog(
  config: Config,
  candidates: Capabilities[],
  filter: CatalogFilter = EVERYTHING,
): CatalogMatch | undefined {
  for (const capabilities of candidates) {
    const match = matchOne(config, capabilities, filter);
    if (match) return match;
  }
  return undefined;
}

function matchOne(
  config: Config,
  capabilities: Capabilities,
  filter: CatalogFilter,
): CatalogMatch | undefined {
  const requestedName = (capabilities.browserName as string | undefined) ?? config.defaultBrowser;
  if (requestedName === undefined) return undefined;
  const browserName = findBrowser(config, requestedName);
  if (browserName === undefined) return undefined;
  const browser = config.browsers[browserName];
  if (!browser) return undefined;
  const versions = Object.keys(browser.versions).filter((version) => filter.version(browserName, version));
  const browserVersion = resolveVersion(
    versions,
    browser.defaultVersion !== undefined && versions.includes(browser.defaultVersion)
      ? browser.defaultVersion
      : undefined,
    capabilities.browserVersion as string | undefined,
  );
  if (browserVersion === undefined) return undefined;
  const version = browser.versions[browserVersion];
  if (!version || !platformMatches(version.platformName, capabilities.platformName as string | undefined)) {
    return undefined;
  }
  const pools = version.pools
    .filter((name) => filter.pool(name))
    .map((name) => config.pools[name])
    .filter((p): p is PoolConfig => p !== undefined);
  if (pools.length === 0) return undefined;
  return { browserName, browserVersion, platformName: version.platformName, pools, capabilities };
}

/**
 * W3C §7.2 "Matching capabilities" compares browserName exactly; the config's aliases are the grid's own
 * other names for a browser, matched exactly too.
 */
function findBrowser(config: Config, requested: string): string | undefined {
  return Object.entries(config.browsers).find(
    ([name, browser]) => name === requested || browser.aliases.includes(requested),
  )?.[0];
}

/**
 * Exact version, else the highest version of which the request is a dotted prefix ("156" → "156.0.8078.108",
 * but "15" does not match "156.0"); no version or "latest" → the default (else the highest).
 */
export function resolveVersion(versions: string[], defaultVersion: string | undefined, requested?: string) {
  if (requested === undefined || DEFAULT_VERSION_WORDS.has(requested.toLowerCase())) {
    return defaultVersion ?? versions.sort(compareVersions).at(-1);
  }
  if (versions.includes(requested)) return requested;
  return versions
    .filter((version) => version.startsWith(`${requested}.`))
    .sort(compareVersions)
    .at(-1);
}

function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * W3C §7.2 "Matching capabilities": platformName matches only the same string ("LINUX" is not "linux").
 * "any", which Selenium clients send for Platform.ANY, matches every platform, as in Selenium Grid.
 */
function platformMatches(offered: string, requested: string | undefined): boolean {
  return requested === undefined || requested === 'any' || requested === offered;
}

/** What the catalog offers, for "session not created" messages: "chrome 156.0 (linux), firefox 140 (linux)". */
export function describeCatalog(config: Config, filter: CatalogFilter = EVERYTHING): string {
  const offers = Object.entries(config.browsers).flatMap(([name, browser]) =>
    Object.entries(browser.versions)
      .filter(
        ([version, { pools }]) => filter.version(name, version) && pools.some((pool) => filter.pool(pool)),
      )
      .map(([version, { platformName }]) => `${name} ${version} (${platformName})`),
  );
  return offers.join(', ') || 'nothing';
}

/** What a client asked for, for "session not created" messages: `{browserName "safari"} or {no browserName}`. */
export function describeRequest(candidates: Capabilities[]): string {
  return candidates
    .map((caps) => {
      const parts = ['browserName', 'browserVersion', 'platformName']
        .filter((key) => caps[key] !== undefined)
        .map((key) => `${key} "${caps[key]}"`);
      return parts.length ? `{${parts.join(', ')}}` : '{no browserName}';
    })
    .join(' or ');
}

/** Pools in weighted random order (Efraimidis–Spirakis): heavier pools tend to come first, all are tried. */
export function orderByWeight(pools: PoolConfig[], random: () => number = Math.random): PoolConfig[] {
  return pools
    .map((pool) => ({ pool, key: random() ** (1 / pool.weight) }))
    .sort((a, b) => b.key - a.key)
    .map(({ pool }) => pool);
}
