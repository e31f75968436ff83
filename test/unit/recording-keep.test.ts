/** Which ended sessions keep their video under recording.keep, and where the policy comes from. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import type { SessionEndReason } from '../../functions/core/ports';
import { videoNotKept } from '../../functions/core/recording-keep';
import { recordingAsk, recordingWish } from '../../functions/core/recording-wish';

describe('videoNotKept', () => {
  it('keeps every video under "all" and by default', () => {
    expect(videoNotKept('all', { result: { status: 'passed' }, endReason: 'deleted' })).toBeUndefined();
    expect(videoNotKept(undefined, { endReason: 'deleted' })).toBeUndefined();
  });

  it.each<SessionEndReason>(['idle timeout', 'max age', 'browser exited', 'reclaimed', 'server shutdown'])(
    'keeps the video of a session cut short by %s under "failed", whatever its test said',
    (endReason) => {
      expect(videoNotKept('failed', { result: { status: 'passed' }, endReason })).toBeUndefined();
    },
  );

  it('keeps a failed test’s video under "failed", and says why the others are not kept', () => {
    expect(videoNotKept('failed', { result: { status: 'failed' }, endReason: 'deleted' })).toBeUndefined();
    expect(videoNotKept('failed', { result: { status: 'passed' }, endReason: 'deleted' })).toBe(
      'not kept: the test passed (recording.keep: failed)',
    );
    expect(videoNotKept('failed', { endReason: 'deleted' })).toBe(
      'not kept: no failure was reported (recording.keep: failed)',
    );
  });
});

describe('the keep policy of a session', () => {
  const config = parseConfig(
    {
      recording: { keep: 'failed' },
      browsers: { chrome: { versions: { '1': { pools: ['a', 'b'] } } } },
      pools: { a: { kind: 'local' }, b: { kind: 'local', keep: 'all' } },
    },
    { builtInBrowserVersion: '1' },
  );
  const pool = (name: 'a' | 'b') => config.pools[name] as NonNullable<(typeof config.pools)[string]>;

  it('is the client’s, else the pool’s, else the config’s', () => {
    expect(recordingWish(config, pool('a'), recordingAsk({}, undefined)).keep).toBe('failed');
    expect(recordingWish(config, pool('b'), recordingAsk({}, undefined)).keep).toBeUndefined();
    expect(recordingWish(config, pool('b'), recordingAsk({}, { keep: 'failed' })).keep).toBe('failed');
  });

  it('refuses anything but "all" or "failed"', () => {
    expect(() => recordingAsk({}, { keep: 'passed' })).toThrow(
      'gridgate:options.keep must be "all" or "failed"',
    );
  });
});
