/** What an ecs task's node is asked for, with and without a video recorder beside it. */
import { describe, expect, it } from 'vitest';
import { taskCapabilities } from '../../functions/adapters/aws/node-capabilities';
import { type EcsPoolConfig, parseConfig } from '../../functions/core/config';

function ecsPool(extra: Record<string, unknown> = {}): EcsPoolConfig {
  const config = parseConfig(
    {
      browsers: { chrome: { versions: { '1': { pools: ['p'] } } } },
      pools: { p: { kind: 'ecs', ...extra } },
    },
    { localBrowserVersion: 'unused' },
  );
  return config.pools.p as EcsPoolConfig;
}

const capabilities = { browserName: 'chrome', browserVersion: '1', 'se:recordVideo': true };
const video = { video: true, log: false };

describe('taskCapabilities', () => {
  it('says whether to record and names the video by the session key when the pool has a recorder', () => {
    const pool = ecsPool({ recorder: {} });
    expect(pool.recorder?.image).toBe('selenium/video:latest');
    expect(taskCapabilities(pool, { capabilities, key: 'k1', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
      'se:videoName': 'k1',
    });
    // A session that did not ask is not recorded, whatever the recorder would do by itself.
    expect(
      taskCapabilities(pool, {
        capabilities: { browserName: 'chrome' },
        key: 'k2',
        recording: { video: false, log: false },
      }),
    ).toEqual({ browserName: 'chrome', 'se:recordVideo': false, 'se:videoName': 'k2' });
  });

  it('passes the client’s capabilities (less the version) on as they are without a recorder', () => {
    expect(taskCapabilities(ecsPool(), { capabilities, key: 'k', recording: video })).toEqual({
      browserName: 'chrome',
      'se:recordVideo': true,
    });
  });
});
