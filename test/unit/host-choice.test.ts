import { describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../../functions/core/config';
import {
  hubAttemptShare,
  NO_FAILURES,
  nextCandidates,
  recordFailure,
} from '../../functions/core/host-choice';

function pools(spec: Record<string, { region?: string; hub?: string }>): PoolConfig[] {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '1': { pools: Object.keys(spec) } } } },
      pools: Object.fromEntries(
        Object.entries(spec).map(([name, { region, hub }]) => [
          name,
          hub ? { kind: 'hub', url: `http://${hub}/wd/hub`, region } : { kind: 'local', region },
        ]),
      ),
    },
    { builtInBrowserVersion: 'unused' },
  );
  return Object.values(config.pools);
}
const names = (list: PoolConfig[]) => list.map((pool) => pool.name);
const named = (list: PoolConfig[], name: string) => list.find((pool) => pool.name === name) as PoolConfig;

describe('nextCandidates', () => {
  const all = pools({
    e1: { region: 'e', hub: 'e1:4444' },
    e2: { region: 'e', hub: 'e2:4444' },
    f1: { region: 'f', hub: 'f1:4444' },
  });

  it('offers every pool, in the given order, before anything failed', () => {
    expect(names(nextCandidates(all, NO_FAILURES))).toEqual(['e1', 'e2', 'f1']);
  });

  it('drops only the pool whose hub answered with a WebDriver error', () => {
    const state = recordFailure(NO_FAILURES, named(all, 'e1'), 'refused');
    expect(names(nextCandidates(all, state))).toEqual(['e2', 'f1']);
  });

  it('moves to another region after a hub could not be reached', () => {
    const state = recordFailure(NO_FAILURES, named(all, 'e1'), 'unreachable');
    expect(names(nextCandidates(all, state))).toEqual(['f1']);
  });

  it('makes the failed regions eligible again once every region has failed', () => {
    let state = recordFailure(NO_FAILURES, named(all, 'e1'), 'unreachable');
    state = recordFailure(state, named(all, 'f1'), 'unreachable');
    expect(names(nextCandidates(all, state))).toEqual(['e2']);
  });

  it('rules out every pool on a hub that could not be reached', () => {
    const twice = pools({
      a: { region: 'x', hub: 'h:1' },
      b: { region: 'y', hub: 'h:1' },
      c: { hub: 'k:1' },
    });
    const state = recordFailure(NO_FAILURES, named(twice, 'a'), 'unreachable');
    expect(names(nextCandidates(twice, state))).toEqual(['c']);
  });

  it('treats pools without a region as one region', () => {
    const plain = pools({ a: { hub: 'a:1' }, b: { hub: 'b:1' }, c: { region: 'r', hub: 'c:1' } });
    const state = recordFailure(NO_FAILURES, named(plain, 'a'), 'unreachable');
    expect(names(nextCandidates(plain, state))).toEqual(['c']);
  });

  it('never offers a pool twice, so retries end', () => {
    let state = NO_FAILURES;
    for (const pool of all) state = recordFailure(state, pool, 'refused');
    expect(nextCandidates(all, state)).toEqual([]);
  });
});

describe('hubAttemptShare', () => {
  it('gives each upstream an equal share of the time for starting: every distinct hub, every other pool', () => {
    const three = pools({ a: { hub: 'a:4444' }, b: { hub: 'b:4444' }, local: {} });
    expect(hubAttemptShare(three, 60_000)).toBe(20_000);
  });

  it('counts pools on one hub once, since one failure there takes them all out', () => {
    const oneHubTwice = pools({ a: { hub: 'h:4444' }, b: { hub: 'h:4444' }, c: { hub: 'c:4444' } });
    expect(hubAttemptShare(oneHubTwice, 60_000)).toBe(30_000);
  });

  it('bounds nothing when there is nothing else to try', () => {
    expect(hubAttemptShare(pools({ a: { hub: 'a:4444' } }), 60_000)).toBeUndefined();
    expect(hubAttemptShare(pools({ a: { hub: 'h:4444' }, b: { hub: 'h:4444' } }), 60_000)).toBeUndefined();
  });
});
