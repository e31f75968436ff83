import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEvery } from '../../functions/core/periodic-task';
import { CollectingLogger } from '../support/fakes';

afterEach(() => {
  vi.useRealTimers();
});

describe('runEvery', () => {
  it('logs a run that fails and runs again at the next tick', async () => {
    vi.useFakeTimers();
    const logger = new CollectingLogger();
    let runs = 0;
    const task = runEvery(
      'expiry sweep',
      100,
      async () => {
        runs++;
        if (runs < 3) throw new Error('store unavailable');
      },
      logger,
    );
    await vi.advanceTimersByTimeAsync(350);
    task.stop();
    expect(runs).toBe(3);
    expect(logger.fieldsOf('BACKGROUND_TASK_FAILED')).toEqual([
      { task: 'expiry sweep', error: 'Error: store unavailable' },
      { task: 'expiry sweep', error: 'Error: store unavailable' },
    ]);
  });

  it('skips a tick while the last run is still going, and none starts once stopped', async () => {
    vi.useFakeTimers();
    let started = 0;
    let finish: () => void = () => {};
    const task = runEvery(
      'slow',
      100,
      () => {
        started++;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
      new CollectingLogger(),
    );
    await vi.advanceTimersByTimeAsync(450);
    expect(started).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    task.stop();
    finish();
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toBe(2);
  });

  it('catches a run that throws synchronously', async () => {
    vi.useFakeTimers();
    const logger = new CollectingLogger();
    const task = runEvery(
      'warm browsers',
      100,
      () => {
        throw new TypeError('boom');
      },
      logger,
    );
    await vi.advanceTimersByTimeAsync(100);
    task.stop();
    expect(logger.fieldsOf('BACKGROUND_TASK_FAILED')).toEqual([
      { task: 'warm browsers', error: 'TypeError: boom' },
    ]);
  });
});
