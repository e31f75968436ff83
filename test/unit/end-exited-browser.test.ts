/** A browser that exited without being stopped ends its session; a store that is down leaves it to the sweep. */
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import type { GridDeps } from '../../functions/core/grid-deps';
import { SessionTokens } from '../../functions/core/session-token';
import { SlotQueue } from '../../functions/core/slot-queue';
import { POOL_TRAITS } from '../../functions/pools';
import { endSessionOfExitedBrowser } from '../../functions/use-cases/end-exited-browser';
import { sampleRecord } from '../contract/store-samples';
import { CollectingLogger, FakeLauncher, FixedClock } from '../support/fakes';

function setup(sessions = new MemorySessionStore()) {
  const launcher = new FakeLauncher();
  const logger = new CollectingLogger();
  const deps: GridDeps = {
    config: parseConfig({}, { builtInBrowserVersion: '156.0' }),
    runtimes: { local: { launcher } },
    poolTraits: POOL_TRAITS,
    sessions,
    queue: new SlotQueue(),
    ended: new EndedSessions(),
    tokens: new SessionTokens(Buffer.alloc(32, 1)),
    logger,
    clock: new FixedClock(),
    version: 'test',
  };
  return { deps, launcher, sessions, logger };
}

describe('endSessionOfExitedBrowser', () => {
  it('ends the session whose browser it was, as exited, and only that one', async () => {
    const { deps, launcher, sessions, logger } = setup();
    await sessions.add(sampleRecord('s1'));
    await sessions.add(sampleRecord('s2'));
    endSessionOfExitedBrowser(deps, 'handle-s1', { code: 1 });
    expect(logger.fieldsOf('BROWSER_EXITED')).toEqual([{ handle: 'handle-s1', code: 1 }]);
    await expect.poll(() => launcher.stops).toEqual(['handle-s1']);
    expect((await sessions.get('s1'))?.endReason).toBe('browser exited');
    expect((await sessions.running()).map((record) => record.key)).toEqual(['s2']);
  });

  it('logs a store that cannot list the sessions, leaving the session to the expiry sweep', async () => {
    const down = new MemorySessionStore();
    down.running = () => Promise.reject(new Error('store down'));
    const { deps, launcher, logger } = setup(down);
    endSessionOfExitedBrowser(deps, 'handle-s1', {});
    await expect
      .poll(() => logger.fieldsOf('BACKGROUND_TASK_FAILED'))
      .toEqual([{ task: 'browser exit', handle: 'handle-s1', error: 'Error: store down' }]);
    expect(launcher.stops).toEqual([]);
  });
});
