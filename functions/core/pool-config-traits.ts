/**
 * What gridgate knows of a pool kind from its config alone, in place of comparing kinds: which addresses its
 * browsers may have, where their sessions are reached, how they start. Pure; one table of them per kind
 * (config-traits-by-kind.ts), read by the core, the use cases, HTTP and the entries alike.
 */
import type { Capabilities } from './capabilities';
import type { PoolConfig } from './config-pools';
import type { HubEndpoint, UpstreamEndpoint } from './hub-endpoint';

/** A problem in a pool's config as written, before it is parsed: its path below the pool, and why. */
export interface PoolInputProblem {
  path: string[];
  message: string;
}

export interface PoolConfigTraits<P extends PoolConfig = PoolConfig> {
  /** Whether a decoded session address may be one of this pool's browsers (never contacted otherwise: no SSRF). */
  addressAllowed(pool: P, address: string): boolean;
  /** How to reach the remote end of a session whose browser is at `address`. */
  upstreamEndpoint(pool: P, address: string): UpstreamEndpoint;
  /**
   * The one remote end every session of the pool shares (a hub): a hub that failed is not tried again through
   * another pool naming it, and requests it makes of gridgate are known as its. None: each browser its own.
   */
  sharedEndpoint?(pool: P): HubEndpoint;
  /** Whether its browsers start cold on AWS (an image pulled per session), which lengthens the default wait. */
  readonly startsCold: boolean;
  /** Whether it keeps browsers ready ahead of demand, whose count the status shows. */
  keepsWarm(pool: P): boolean;
  /** Whether its warm browsers are tasks kept in the shared store (claimed and counted there). */
  warmInStore?(pool: P): boolean;
  /**
   * Longest one new-session attempt may take here before the next pool is tried, given the share of
   * timeouts.newSession an attempt gets (`share`). Absent: an attempt is bounded by the request only.
   */
  attemptTimeoutMs?(pool: P, share: number | undefined): number | undefined;
  /** The noVNC server beside each browser, on the browser's own host: its port and password; none: no live view there. */
  vncBesideBrowser?(pool: P): { port: number; password: string } | undefined;
  /** Why these capabilities may not start a browser in this pool (its browsers are this machine's), or undefined. */
  launchRefusal?(capabilities: Capabilities, pool: P): string | undefined;
  /** Why the pool cannot run in gridgate's functions on AWS; absent: it can. */
  readonly notOnAws?: string;
  /** Problems of the pool's config as written that its schema alone does not see. */
  inputProblems?(input: Record<string, unknown>): PoolInputProblem[];
  /** The pool as written, with the deployment's recordings bucket laid in where the kind keeps things there. */
  withRecordingsBucket?(
    input: Record<string, unknown>,
    place: { bucket: string; region: string },
  ): Record<string, unknown>;
}
