/**
 * What the use cases and the servers need to know of a pool kind at run time, in place of comparing kinds:
 * where its browser runs and what gridgate serves for it. Each kind states its own (pools/<kind>/); the
 * entries hand the registry's table to the app as GridDeps.poolTraits.
 */
import type { PoolConfig } from './config-pools';

export interface PoolTraits {
  /**
   * What answers a new-session request: the browser itself, or a hub that speaks for many browsers (its
   * errors are the hub's, its sessions carry its credentials, its Selenoid paths are passed through).
   */
  readonly remoteEnd: 'browser' | 'hub';
  /**
   * The browser runs where the head that created it runs (a process of it, or a container in its machine's
   * engine): only that head can stop it, and its driver's own `invalid session id` means the browser is gone,
   * so the session is over.
   */
  readonly boundToItsHead: boolean;
  /**
   * A session of the pool that asks for its video can have one: gridgate's own recorder (local, container), a
   * recorder beside the browser where the pool has one (ecs, eks), or the hub's, which the hub decides (Selenium
   * Grid's nodes record when they run its video container).
   */
  readonly recordsVideo: (pool: PoolConfig) => boolean;
}

/** The traits of every pool kind, by kind. */
export type PoolTraitsByKind = Readonly<Record<PoolConfig['kind'], PoolTraits>>;
