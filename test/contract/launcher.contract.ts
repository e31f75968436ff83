/**
 * The Launcher contract (core/ports.ts): what every adapter of the port must do, run by each pool kind from
 * its own folder in a few lines (test/pools/<kind>/<kind>-launcher-contract.test.ts, as hono's routers run
 * src/router/common.case.test.ts): local, hub, container, and ecs and eks over their fake APIs. Starting
 * honours the request's abort signal; a started browser is where its pool allows browsers to be; stopping is
 * idempotent, never throws for a handle it does not know, and reports no failure for a browser that is gone
 * already.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addressAllowed } from '../../functions/core/browser-network';
import type { PoolConfig } from '../../functions/core/config';
import type { Launcher, LaunchRequest, StopContext } from '../../functions/core/ports';
import type { CollectingLogger } from '../support/fakes';

export interface LauncherUnderTest {
  launcher: Launcher;
  pool: PoolConfig;
  /** How many browsers the launcher has running now, as the adapter can tell. */
  running(): number;
  /**
   * A handle of the adapter's own form that names no browser (a task ID, a pod name), so that stopping it
   * goes where an unknown handle goes (the API's "not found"), not where a malformed one is turned away.
   */
  unknownHandle?: string;
  /** What the adapter logged, where it is given a logger: a browser gone already is no failed stop. */
  logger?: CollectingLogger;
  /** Stops whatever is left (after each test). */
  dispose?(): Promise<void>;
}

function request<P extends PoolConfig>(pool: P, signal: AbortSignal): LaunchRequest<P> {
  return {
    pool,
    key: 'contract-key',
    user: 'guest',
    idleTimeoutMs: 60_000,
    inUseMs: 3_660_000,
    capabilities: { browserName: 'chrome' },
    browserVersion: '',
    signal,
  };
}

const stopContext = (pool: PoolConfig): StopContext => ({
  key: 'k',
  pool,
  reason: 'deleted',
  upstreamId: '',
});

export function launcherContract(name: string, make: () => LauncherUnderTest | Promise<LauncherUnderTest>) {
  describe(`${name} (Launcher contract)`, () => {
    let current: LauncherUnderTest | undefined;
    const setUp = async () => {
      current = await make();
      return current;
    };
    afterEach(async () => {
      await current?.dispose?.();
      current = undefined;
    });

    it('refuses a start whose request was aborted already, leaving nothing running', async () => {
      const { launcher, pool, running } = await setUp();
      const aborted = new AbortController();
      aborted.abort(new Error('the client went away'));
      await expect(launcher.start(request(pool, aborted.signal))).rejects.toThrow();
      expect(running()).toBe(0);
    });

    it('starts a browser where its pool allows browsers to be, and stops it', async () => {
      const { launcher, pool, running } = await setUp();
      const browser = await launcher.start(request(pool, new AbortController().signal));
      expect(addressAllowed(pool, browser.address)).toBe(true);
      expect(browser.capabilities).toMatchObject({ browserName: 'chrome' });
      await launcher.stop(browser.handle, stopContext(pool));
      expect(running()).toBe(0);
    });

    it('stops idempotently, and a handle it does not know is no error', async () => {
      const { launcher, pool, logger, unknownHandle = 'no-such-browser' } = await setUp();
      const browser = await launcher.start(request(pool, new AbortController().signal));
      await launcher.stop(browser.handle, stopContext(pool));
      await expect(launcher.stop(browser.handle, stopContext(pool))).resolves.toBeUndefined();
      expect(unknownHandle).not.toBe(browser.handle);
      await expect(launcher.stop(unknownHandle, stopContext(pool))).resolves.toBeUndefined();
      expect(logger?.fieldsOf('BROWSER_STOP_FAILED') ?? []).toEqual([]);
    });
  });
}
