/**
 * The config's cross-references, checked after (and even where) the schema failed, so one run reports
 * every problem: versions name configured pools, users' rules name configured browsers, versions and pools,
 * no pool takes a reserved colour, and Fargate Spot pools are x86_64.
 */
import type * as z from 'zod';
import { configTraitsNamed } from './config-traits-by-kind';
import { DEFAULT_RESERVED_COLORS } from './config-values';

/** The config as it came, before or despite the schema: only what the checks read, nothing trusted. */
interface ConfigInput {
  browsers?: Record<string, { versions?: Record<string, unknown>; defaultVersion?: string } | null>;
  pools?: Record<string, unknown>;
  defaultBrowser?: string;
  users?: unknown;
  colors?: unknown;
}

export function checkReferences(config: unknown, ctx: z.RefinementCtx): void {
  const input = config as ConfigInput;
  if ((input.browsers === undefined) !== (input.pools === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [input.browsers ? 'pools' : 'browsers'],
      message: 'browsers and pools go together',
    });
  }
  for (const [browserName, entry] of Object.entries(input.browsers ?? {})) {
    if (typeof entry?.versions !== 'object' || entry.versions === null) continue;
    if (Object.keys(entry.versions).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['browsers', browserName, 'versions'],
        message: 'needs at least one version',
      });
    }
    if (entry.defaultVersion !== undefined && !(entry.defaultVersion in entry.versions)) {
      ctx.addIssue({
        code: 'custom',
        path: ['browsers', browserName, 'defaultVersion'],
        message: `"${entry.defaultVersion}" is not one of the versions`,
      });
    }
    for (const [version, offered] of Object.entries(entry.versions)) {
      // Runs on unparsed input too (see `when` below): a version may be null, which zod reports itself.
      const pools = (offered as { pools?: unknown } | null)?.pools;
      if (!Array.isArray(pools)) continue;
      pools.forEach((poolName, index) => {
        if (!input.pools?.[poolName]) {
          ctx.addIssue({
            code: 'custom',
            path: ['browsers', browserName, 'versions', version, 'pools', index],
            message: `no pool named "${poolName}"`,
          });
        }
      });
    }
  }
  if (input.defaultBrowser !== undefined && input.browsers && !(input.defaultBrowser in input.browsers)) {
    ctx.addIssue({
      code: 'custom',
      path: ['defaultBrowser'],
      message: `no browser named "${input.defaultBrowser}"`,
    });
  }
  checkUserReferences(input, ctx);
  checkReservedColors(input, ctx);
  for (const [poolName, entry] of Object.entries(objectOrEmpty(input.pools))) {
    const written = objectOrEmpty(entry);
    for (const { path, message } of configTraitsNamed(written.kind)?.inputProblems?.(written) ?? []) {
      ctx.addIssue({ code: 'custom', path: ['pools', poolName, ...path], message });
    }
  }
}

// What users' rules may name: the configured catalog, or the built-in one (chrome in pool "local").
function checkUserReferences(input: ConfigInput, ctx: z.RefinementCtx): void {
  const browsers = keysOf(input.browsers ?? { chrome: null });
  const pools = keysOf(input.pools ?? { local: null });
  for (const [userName, rule] of Object.entries(objectOrEmpty(input.users))) {
    for (const [browserName, versions] of Object.entries(objectOrEmpty(objectOrEmpty(rule).browsers))) {
      const path = ['users', userName, 'browsers', browserName];
      if (!browsers.includes(browserName)) {
        ctx.addIssue({ code: 'custom', path, message: `no browser named "${browserName}"` });
        continue;
      }
      // The built-in catalog's version is only known at start-up, so only configured ones are checked.
      if (!input.browsers || !Array.isArray(versions)) continue;
      const offered = keysOf(objectOrEmpty(input.browsers[browserName]).versions);
      versions.forEach((version: unknown, index) => {
        if (
          typeof version === 'string' &&
          !offered.some((o) => o === version || o.startsWith(`${version}.`))
        ) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, index],
            message: `${browserName} has no version "${version}"`,
          });
        }
      });
    }
    const rulePools: unknown = objectOrEmpty(rule).pools;
    (Array.isArray(rulePools) ? rulePools : []).forEach((poolName: unknown, index) => {
      if (typeof poolName === 'string' && !pools.includes(poolName)) {
        ctx.addIssue({
          code: 'custom',
          path: ['users', userName, 'pools', index],
          message: `no pool named "${poolName}"`,
        });
      }
    });
  }
}

// A pool coloured with a reserved name could never be asked for: requests with that colour are refused.
function checkReservedColors(input: ConfigInput, ctx: z.RefinementCtx): void {
  const configured: unknown = objectOrEmpty(input.colors).reserved;
  const reserved = Array.isArray(configured) ? configured : DEFAULT_RESERVED_COLORS;
  for (const [poolName, entry] of Object.entries(objectOrEmpty(input.pools))) {
    const poolColor = objectOrEmpty(entry).color;
    if (typeof poolColor === 'string' && reserved.includes(poolColor)) {
      ctx.addIssue({
        code: 'custom',
        path: ['pools', poolName, 'color'],
        message: `"${poolColor}" is a reserved name (colors.reserved), not a colour`,
      });
    }
  }
}

// checkReferences sees the input even where it failed to parse, so it trusts no shape.
function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
function keysOf(value: unknown): string[] {
  return Object.keys(objectOrEmpty(value));
}
