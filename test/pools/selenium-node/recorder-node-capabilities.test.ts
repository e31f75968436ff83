/** What an ecs task's or eks pod's node is asked for, with and without a video recorder beside it. */
import { describe, expect, it } from 'vitest';
import { type EcsPoolConfig, type EksPoolConfig, parseConfig } from '../../../functions/core/config';
import { recorderNodeCapabilities } from '../../../functions/pools/selenium-node/node-capabilities';

function cloudPool(kind: 'ecs' | 'eks', extra: Record<string, unknown> = {}): EcsPoolConfig | EksPoolConfig {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '1': { pools: ['p'] } } } },
      pools: { p: { kind, ...(kind === 'eks' ? { cluster: 'c' } : {}), ...extra } },
    },
    { builtInBrowserVersion: 'unused' },
  );
  return config.pools.p as EcsPoolConfig | EksPoolConfig;
}
const ecsPool = (extra: Record<string, unknown> = {}) => cloudPool('ecs', extra);

const capabilities = { browserName: 'chrome', browserVersion: '1', 'se:recordVideo': true };
const video = { video: true, log: false };

describe('recorderNodeCapabilities', () => {
  it('says whether to record and names the video by the session key when the pool has a recorder', () => {
    const pool = ecsPool({ recorder: {} });
    expect(pool.recorder?.image).toBe('selenium/video:latest');
    expect(recorderNodeCapabilities(pool, { capabilities, key: 'k1', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
      'se:videoName': 'k1',
    });
    // A session that did not ask is not recorded, whatever the recorder would do by itself.
    expect(
      recorderNodeCapabilities(pool, {
        capabilities: { browserName: 'chrome' },
        key: 'k2',
        recording: { video: false, log: false },
      }),
    ).toEqual({ browserName: 'chrome', 'se:recordVideo': false, 'se:videoName': 'k2' });
  });

  it('passes the client’s capabilities (less the version) on as they are without a recorder', () => {
    expect(recorderNodeCapabilities(ecsPool(), { capabilities, key: 'k', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
    });
  });
});

describe('recorderNodeCapabilities on an eks pod', () => {
  it('asks the same of a pod’s node as of a task’s, so the recorder names the video the same way', () => {
    const pool = cloudPool('eks', { recorder: {} });
    expect(recorderNodeCapabilities(pool, { capabilities, key: 'k3', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
      'se:videoName': 'k3',
    });
    expect(recorderNodeCapabilities(cloudPool('eks'), { capabilities, key: 'k', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
    });
  });
});
