import { describe, expect, it } from 'vitest';
import { freeStaleSlots } from '../../functions/core/free-stale-slots';
import type { AbandonedSessions } from '../../functions/core/pool-runtime';
import { startFakeGrid } from '../support/fake-grid';

const HUB_CONFIG = {
  browsers: { chrome: { versions: { '1': { pools: ['hub'] } } } },
  pools: { hub: { kind: 'hub', url: 'http://127.0.0.1:9', maxSessions: 2 } },
  timeouts: { newSession: '10s' },
};

function gridWithHub(endAbandoned: AbandonedSessions['endAbandoned']) {
  const grid = startFakeGrid({ config: HUB_CONFIG });
  const hub = grid.deps.runtimes.hub;
  if (hub) hub.abandoned = { endAbandoned };
  return grid;
}

describe('freeing stale slots', () => {
  it("first asks the pool's launcher to end what the abandoned creations left, by their keys", async () => {
    const asked: string[][] = [];
    const grid = gridWithHub(async (_pool, keys) => {
      asked.push([...keys]);
      return new Map([['hub-session-1', 'stale']]);
    });
    await grid.sessions.acquire('stale', { pool: 'hub', poolLimit: 2, user: 'guest' });
    grid.clock.advance(11_000);
    await grid.sessions.acquire('fresh', { pool: 'hub', poolLimit: 2, user: 'guest' });

    expect(await freeStaleSlots(grid.deps, 0)).toBe(1);
    expect(asked).toEqual([['stale']]);
    expect(await grid.sessions.inUse()).toEqual({ hub: 1 });
    expect(grid.logger.fieldsOf('ORPHANS_REMOVED')).toEqual([
      expect.objectContaining({
        total: 2,
        reaped: { 'stale slot': 1, 'abandoned upstream session': 1 },
        items: expect.arrayContaining([
          {
            reason: 'abandoned upstream session',
            session: 'stale',
            pool: 'hub',
            upstreamId: 'hub-session-1',
          },
        ]),
      }),
    ]);
    await grid.close();
  });

  it('frees the slots when the remote end cannot be asked, and says so', async () => {
    const grid = gridWithHub(() => Promise.reject(new Error('hub unreachable')));
    await grid.sessions.acquire('stale', { pool: 'hub', poolLimit: 2, user: 'guest' });
    grid.clock.advance(11_000);

    expect(await freeStaleSlots(grid.deps, 0)).toBe(1);
    expect(await grid.sessions.inUse()).toEqual({});
    expect(grid.logger.fieldsOf('BACKGROUND_TASK_FAILED')).toEqual([
      { task: 'abandoned upstream sessions', pool: 'hub', error: 'Error: hub unreachable' },
    ]);
    await grid.close();
  });
});
