/**
 * Environment colouring: the colour a new-session request carries (capability, header or Host) and the
 * pools it may use. A coloured request runs on pools of its colour, else on the uncoloured baseline, and
 * never falls back from pools of its colour that exist but cannot serve: that would mix environments.
 *
 * Colouring schemes at scale route within a "group" of instances; gridgate has no groups, so the pools
 * that serve the matched browser version (and that the user may use) are the group, and their
 * uncoloured pools are the default group's baseline.
 */
import { isObject } from './capabilities';
import type { ColorsConfig, PoolConfig } from './config';
import { invalidArgument, sessionNotCreated } from './errors';
import { GRIDGATE_OPTIONS } from './session-limits';

const COLOR_OPTION = `${GRIDGATE_OPTIONS}.color`;
const MAX_LENGTH = 63; // a DNS label's limit, so every colour can also be a subdomain

/** Where a request's colour may come from, as the HTTP layer read them. */
export interface ColorSources {
  /** `gridgate:options` of the matched capabilities (undefined when absent). */
  options: unknown;
  /** The value of the configured colour header (`colors.header`), if the request has one. */
  header?: string | null;
  /** The host the client addressed (Host, or X-Forwarded-Host behind a proxy), port allowed. */
  host?: string | null;
}

export interface RequestColor {
  color: string;
  /** Where it came from, for messages: `gridgate:options.color`, `header X-Grid-Color`, `Host …`. */
  source: string;
}

/**
 * The request's colour, from (in order) the capability, the header, the Host's one label under a
 * configured base domain; undefined when none says one. A colour that breaks a rule is `invalid
 * argument` naming the rule: it is never ignored, since a test meant for a feature environment must
 * not quietly run against the baseline.
 */
export function requestColor(colors: ColorsConfig, sources: ColorSources): RequestColor | undefined {
  const asked = isObject(sources.options) ? sources.options.color : undefined;
  if (asked !== undefined) {
    if (typeof asked !== 'string') throw invalidArgument(`${COLOR_OPTION} must be a string`);
    return checked(colors, asked, COLOR_OPTION);
  }
  if (sources.header !== undefined && sources.header !== null) {
    return checked(colors, sources.header.trim(), `header ${colors.header}`);
  }
  return sources.host ? hostColor(colors, sources.host) : undefined;
}

function checked(colors: ColorsConfig, color: string, source: string): RequestColor {
  const problem = colorProblem(colors, color);
  if (problem) throw invalidArgument(`color "${color}" from ${source} ${problem}`);
  return { color, source };
}

/** Which rule the colour breaks, or undefined when it is a valid colour. */
export function colorProblem(colors: ColorsConfig, color: string): string | undefined {
  if (color.length < 1 || color.length > MAX_LENGTH) return `must be 1–${MAX_LENGTH} characters long`;
  if (!/^[a-z0-9-]+$/.test(color.toLowerCase())) return 'may contain only a–z, 0–9 and "-"';
  if (color !== color.toLowerCase()) return `must be lower case ("${color.toLowerCase()}")`;
  if (colors.reserved.includes(color)) {
    return `is a reserved name (colors.reserved: ${colors.reserved.join(', ')}), not a colour`;
  }
  return undefined;
}

/**
 * `green.grid.example.com` under the base domain `grid.example.com` → green. Host names are
 * case-insensitive (RFC 4343), so the label is read lower-cased. Only one label counts, as a wildcard
 * certificate covers only one: a deeper name is refused rather than guessed at.
 */
function hostColor(colors: ColorsConfig, host: string): RequestColor | undefined {
  const name = host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const base = [...colors.baseDomains]
    .sort((a, b) => b.length - a.length)
    .find((domain) => name.endsWith(`.${domain}`));
  if (base === undefined) return undefined;
  const label = name.slice(0, -(base.length + 1));
  if (label.includes('.')) {
    throw invalidArgument(
      `Host ${name} has more than one label before the base domain ${base}; a colour is one label (green.${base})`,
    );
  }
  return checked(colors, label, `Host ${name}`);
}

/**
 * The pools a request may use. `colored`: only pools of its colour, and failing there is final;
 * `baseline`: the uncoloured pools (an uncoloured request, or a colour no pool has); `any`: every pool
 * (an uncoloured request with `isolation: "loose"`).
 */
export type PoolChoice =
  | { rule: 'colored'; color: string; pools: PoolConfig[] }
  | { rule: 'baseline'; color?: string; pools: PoolConfig[] }
  | { rule: 'any'; pools: PoolConfig[] };

/**
 * Narrows the pools that serve the request (`what`: "chrome 156.0") by its colour. Throws `session not
 * created` when the rules leave no pool, naming the colours there are.
 */
export function choosePools(
  colors: ColorsConfig,
  color: string | undefined,
  pools: PoolConfig[],
  what: string,
): PoolChoice {
  const baseline = pools.filter((pool) => pool.color === undefined);
  if (color !== undefined) {
    const colored = pools.filter((pool) => pool.color === color);
    if (colored.length > 0) return { rule: 'colored', color, pools: colored };
    if (baseline.length > 0) return { rule: 'baseline', color, pools: baseline };
    throw sessionNotCreated(
      `no pool serving ${what} has color "${color}" and none is uncolored to fall back to; ${describeColors(pools)}`,
    );
  }
  if (colors.isolation === 'loose') return { rule: 'any', pools };
  if (baseline.length > 0) return { rule: 'baseline', pools: baseline };
  throw sessionNotCreated(
    `every pool serving ${what} is colored and the request has no color (isolation is strict); ${describeColors(pools)}: ask for one with ${COLOR_OPTION} or the ${colors.header} header`,
  );
}

function describeColors(pools: PoolConfig[]): string {
  const offered = [...new Set(pools.flatMap((pool) => (pool.color ? [pool.color] : [])))];
  return `colors there: ${offered.map((c) => `"${c}"`).join(', ')}`;
}

/**
 * What the client is told when the chosen pools could not serve (full past the queue timeout, failing,
 * unreachable): for a colour with pools of its own, that gridgate did not fall back, and why.
 */
export function unservedMessage(choice: PoolChoice, message: string): string {
  if (choice.rule !== 'colored') return message;
  const names = choice.pools.map((pool) => pool.name).join(', ');
  return `${message}; pools of color "${choice.color}" exist (${names}) but none could serve, and the session is not sent to uncolored pools, which would mix environments`;
}

/**
 * The colour as a metrics dimension: only a colour some pool is configured with, so the series stay
 * bounded whatever clients ask for.
 */
export function metricColor(choice: PoolChoice): string | undefined {
  return choice.rule === 'colored' ? choice.color : undefined;
}

/** The header a pool's browsers send the colour in, or undefined when the pool does not colour traffic. */
export function colorHeaderName(pool: PoolConfig, colors: ColorsConfig): string | undefined {
  if (pool.colorHeader === true) return colors.header;
  return typeof pool.colorHeader === 'string' ? pool.colorHeader : undefined;
}
