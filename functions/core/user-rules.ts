/**
 * Users' rules (config `users`): which browsers, versions and pools a user may use, and how many sessions
 * the user may hold at once. A user without an entry gets the "*" entry; with neither, no rule applies.
 */
import type { Capabilities } from './capabilities';
import {
  type CatalogFilter,
  type CatalogMatch,
  describeCatalog,
  describeRequest,
  matchCatalog,
} from './catalog';
import { ANY_USER, type Config, type UserConfig } from './config';
import { sessionNotCreated } from './errors';

const NO_RULE: UserConfig = {};

/** The user's own entry (replacing "*" as a whole), else the "*" entry, else no rule at all. */
export function userRule(config: Config, user: string): UserConfig {
  // hasOwn: a user called "constructor" must not find Object.prototype's.
  if (Object.hasOwn(config.users, user)) return config.users[user] ?? NO_RULE;
  return config.users[ANY_USER] ?? NO_RULE;
}

/** The catalog as the rule lets the user see it. */
export function ruleFilter(rule: UserConfig): CatalogFilter {
  return {
    version: (browserName, version) => {
      if (!rule.browsers) return true;
      const allowed = Object.hasOwn(rule.browsers, browserName) ? rule.browsers[browserName] : undefined;
      if (allowed === undefined) return false;
      // The same dotted-prefix reading as browserVersion: "156" allows "156.0.8078.108", not "1560".
      return allowed === '*' || allowed.some((v) => version === v || version.startsWith(`${v}.`));
    },
    pool: (poolName) => !rule.pools || rule.pools.includes(poolName),
  };
}

/**
 * The first candidate the catalog offers and the user may use. Throws `session not created` naming what
 * was asked when the grid offers nothing like it, and naming the browser when the user may not use it
 * (that is a refusal, not a reason to wait in the queue).
 */
export function matchForUser(config: Config, user: string, candidates: Capabilities[]): CatalogMatch {
  const offered = matchCatalog(config, candidates);
  if (!offered) {
    throw sessionNotCreated(
      `no browser here matches ${describeRequest(candidates)}; this grid offers ${describeCatalog(config)}`,
    );
  }
  const filter = ruleFilter(userRule(config, user));
  const allowed = matchCatalog(config, candidates, filter);
  if (allowed) return allowed;
  const what = `${offered.browserName} ${offered.browserVersion}`;
  const refusal = filter.version(offered.browserName, offered.browserVersion)
    ? `the pools that serve ${what} (${offered.pools.map((pool) => pool.name).join(', ')})`
    : what;
  throw sessionNotCreated(
    `user ${user} may not use ${refusal}; ${user} may use ${describeCatalog(config, filter)}`,
  );
}
