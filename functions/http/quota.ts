/**
 * GET /quota: what the caller may use, as their user rule allows: browsers, versions and the pools that
 * serve them. Never a pool's URL, address or credentials (ggr #311 showed them blanked; here they are absent).
 */
import type { Config, PoolConfig } from '../core/config';
import { ruleFilter, userRule } from '../core/user-rules';

export interface PoolSummary {
  name: string;
  kind: PoolConfig['kind'];
  region?: string;
  weight: number;
  maxSessions: number;
}

export interface QuotaBrowser {
  name: string;
  aliases: string[];
  defaultVersion?: string;
  versions: { version: string; platformName: string; pools: PoolSummary[] }[];
}

export interface Quota {
  user: string;
  /** Sessions the user may hold at once; absent when there is no per-user limit. */
  maxSessions?: number;
  browsers: QuotaBrowser[];
}

export function userQuota(config: Config, user: string): Quota {
  const rule = userRule(config, user);
  const filter = ruleFilter(rule);
  const browsers = Object.entries(config.browsers).flatMap(([name, browser]): QuotaBrowser[] => {
    const versions = Object.entries(browser.versions)
      .filter(([version]) => filter.version(name, version))
      .map(([version, offered]) => ({
        version,
        platformName: offered.platformName,
        pools: offered.pools
          .filter((pool) => filter.pool(pool))
          .flatMap((pool) => (config.pools[pool] ? [summary(config.pools[pool])] : [])),
      }))
      .filter((version) => version.pools.length > 0);
    if (versions.length === 0) return [];
    const defaultVersion = versions.some((v) => v.version === browser.defaultVersion)
      ? browser.defaultVersion
      : undefined;
    return [
      { name, aliases: browser.aliases, ...(defaultVersion !== undefined && { defaultVersion }), versions },
    ];
  });
  return { user, ...(rule.maxSessions !== undefined && { maxSessions: rule.maxSessions }), browsers };
}

// Only what a client may know: never url, username, password or addresses.
function summary(pool: PoolConfig): PoolSummary {
  return {
    name: pool.name,
    kind: pool.kind,
    ...(pool.region !== undefined && { region: pool.region }),
    weight: pool.weight,
    maxSessions: pool.maxSessions,
  };
}
