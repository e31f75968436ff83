/** onFirstUse: a launcher made on its first start or stop, so a kind's SDK stays out of a cold start. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { onFirstUse } from '../../functions/core/launcher-on-first-use';
import type { Launcher, StopContext } from '../../functions/core/ports';

const STOPPING: StopContext = {
  key: 'k',
  pool: Object.values(parseConfig({}, { builtInBrowserVersion: '1' }).pools)[0] as StopContext['pool'],
  reason: 'deleted',
  upstreamId: '',
};

function countingMaker() {
  const made = { times: 0 };
  const make = async (): Promise<Launcher> => {
    made.times++;
    return {
      start: async () => Promise.reject(new Error('not in this test')),
      stop: async () => {},
    };
  };
  return { make, made };
}

describe('onFirstUse', () => {
  it('makes the launcher with its first stop, not before, and keeps it', async () => {
    const { make, made } = countingMaker();
    const launcher = onFirstUse(make);
    expect(made.times).toBe(0);
    await launcher.stop('handle', STOPPING);
    await launcher.stop('handle', STOPPING);
    expect(made.times).toBe(1);
  });

  it('tries again to make a launcher whose making failed', async () => {
    let tries = 0;
    const launcher = onFirstUse(async () => {
      tries++;
      if (tries === 1) throw new Error('SDK failed to load');
      return countingMaker().make();
    });
    await expect(launcher.stop('handle', STOPPING)).rejects.toThrow('SDK failed to load');
    await launcher.stop('handle', STOPPING);
    expect(tries).toBe(2);
  });
});
