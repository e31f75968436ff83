import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../../functions/core/config-pools';
import { poolsThatRecord } from '../../functions/core/video-pools';

/** Pools as the decision sees them: a name, and whether its kind records its sessions' video. */
const pool = (name: string) => ({ name, kind: 'ecs' }) as PoolConfig;
const recorder = pool('with-recorder');
const bare = pool('bare');
const alsoBare = pool('also-bare');
const traits = (of: PoolConfig) => ({ recordsVideo: () => of === recorder });

describe('poolsThatRecord', () => {
  it("keeps for a socket session's video only the pools that record it", () => {
    const ask = { protocol: 'playwright' as const, recording: { video: true } };
    expect(poolsThatRecord([bare, recorder, alsoBare], ask, traits)).toEqual([recorder]);
  });

  it('refuses at once when none of the pools records video, naming them', () => {
    const ask = { protocol: 'cdp' as const, recording: { video: true } };
    expect(() => poolsThatRecord([bare], ask, traits)).toThrow(
      expect.objectContaining({
        code: 'session not created',
        message: expect.stringMatching(/^the pool bare records no video: its browsers/),
      }),
    );
    expect(() => poolsThatRecord([bare, alsoBare], ask, traits)).toThrow(
      /^the pools bare, also-bare record no video: their browsers/,
    );
  });

  it("leaves every pool to a WebDriver session's video and to a socket session asking none", () => {
    const pools = [bare, recorder];
    expect(poolsThatRecord(pools, { protocol: undefined, recording: { video: true } }, traits)).toEqual(
      pools,
    );
    expect(poolsThatRecord(pools, { protocol: 'playwright', recording: {} }, traits)).toEqual(pools);
    expect(poolsThatRecord(pools, { protocol: 'playwright', recording: { video: false } }, traits)).toEqual(
      pools,
    );
  });
});
