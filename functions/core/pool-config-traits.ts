/**
 * What gridgate knows of a pool kind from its config alone, in place of comparing kinds: which addresses its
 * browsers may have, where their sessions are reached, how they start. Pure; each kind's are in its config
 * module (pools/<kind>/<kind>-pool-config.ts), read through config-traits-by-kind.ts by the core, the use
 * cases, HTTP and the entries alike.
 */
import type * as z from 'zod';
import type { Capabilities } from './capabilities';
import type { SharedEndpoint, UpstreamEndpoint } from './upstream-endpoint';

/** A problem in a pool's config as written, before it is parsed: its path below the pool, and why. */
export interface PoolInputProblem {
  path: string[];
  message: string;
}

// P is the parsed pool of one kind; it is not bound to the config's union, which is built from these modules.
export interface PoolConfigTraits<P> {
  /** Whether a decoded session address may be one of this pool's browsers (never contacted otherwise: no SSRF). */
  addressAllowed(pool: P, address: string): boolean;
  /** How to reach the remote end of a session whose browser is at `address`. */
  upstreamEndpoint(pool: P, address: string): UpstreamEndpoint;
  /**
   * The one remote end every session of the pool shares (a hub): a hub that failed is not tried again through
   * another pool naming it, and requests it makes of gridgate are known as its. None: each browser its own.
   */
  sharedEndpoint?(pool: P): SharedEndpoint;
  /** Whether its browsers start cold on AWS (an image pulled per session), which lengthens the default wait. */
  readonly startsCold: boolean;
  /** Whether it keeps browsers ready ahead of demand, whose count the status shows. */
  keepsWarm(pool: P): boolean;
  /**
   * Longest one new-session attempt may take here before the next pool is tried, given the share of
   * timeouts.newSession an attempt gets (`share`). Absent: an attempt is bounded by the request only.
   */
  attemptTimeoutMs?(pool: P, share: number | undefined): number | undefined;
  /** The noVNC server beside each browser, on the browser's own host: its port and password; none: no live view there. */
  vncBesideBrowser?(pool: P): { port: number; password: string } | undefined;
  /** Why these capabilities may not start a browser in this pool (its browsers are this machine's), or undefined. */
  launchRefusal?(capabilities: Capabilities, pool: P): string | undefined;
  /**
   * What keeps the pool from running in gridgate's functions on AWS, each problem naming its key (checked before
   * any session, there and by the CDK app); none, or absent: it can.
   */
  notOnAws?(pool: P): string[];
  /** Problems of the pool's config as written that its schema alone does not see. */
  inputProblems?(input: Record<string, unknown>): PoolInputProblem[];
  /** The pool as written, with the deployment's recordings bucket laid in where the kind keeps things there. */
  withRecordingsBucket?(
    input: Record<string, unknown>,
    place: { bucket: string; region: string },
  ): Record<string, unknown>;
}

/** A pool as parsed from a kind's schema: the schema's output and the name it has in the config's `pools`. */
export type NamedPool<S extends z.ZodType> = z.output<S> & { name: string };

/** A kind's config side: its schema (one option of the config's `pools` union) and its traits over that pool. */
export interface PoolConfigKind<S extends z.ZodType> {
  readonly schema: S;
  readonly traits: PoolConfigTraits<NamedPool<S>>;
}

/** A kind's config side, the traits typed by the schema's pool. */
export function poolConfigKind<S extends z.ZodType>(
  schema: S,
  traits: PoolConfigTraits<NamedPool<S>>,
): PoolConfigKind<S> {
  return { schema, traits };
}

/** A browser reached at its own address, with no base path and no credentials of gridgate's. */
export function directEndpoint(_pool: unknown, address: string): UpstreamEndpoint {
  return { origin: `http://${address}`, basePath: '' };
}
