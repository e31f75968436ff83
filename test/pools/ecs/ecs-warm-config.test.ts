import { describe, expect, it } from 'vitest';
import { type EcsPoolConfig, parseConfig } from '../../../functions/core/config';

function fargate(warm: unknown) {
  return parseConfig(
    {
      browsers: { chrome: { versions: { '156': { pools: ['fargate'] } } } },
      pools: { fargate: { kind: 'ecs', warm } },
    },
    { builtInBrowserVersion: 'unused' },
  ).pools.fargate as EcsPoolConfig;
}

describe('pools.{name}.warm of an ecs pool', () => {
  it('reads min, max and the idle TTL as a duration', () => {
    expect(fargate({ min: 1, max: 4, idleTtl: '90s' }).warm).toEqual({ min: 1, max: 4, idleTtl: 90_000 });
  });

  it('keeps none unless asked: max 0 and a 15-minute TTL by default', () => {
    expect(fargate({}).warm).toEqual({ min: 0, max: 0, idleTtl: 15 * 60_000 });
  });

  it('refuses min above max, and a TTL that is not a duration, naming the keys', () => {
    expect(() => fargate({ max: 2, idleTtl: 'soon' })).toThrow(
      /pools\.fargate\.warm\.idleTtl: must be a duration/,
    );
    expect(() => fargate({ min: 3, max: 2 })).toThrow(/pools\.fargate\.warm\.min: min must not be above max/);
    expect(() => fargate({ max: 2, size: 3 })).toThrow(/pools\.fargate\.warm/);
  });
});
