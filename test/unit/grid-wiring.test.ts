/** The one wiring both entries build their GridDeps with: what each entry gives decides what it gets. */
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import { EndedSessions } from '../../functions/core/ended-sessions';
import { type Launcher, noMetrics } from '../../functions/core/ports';
import {
  EVERY_POOL_KIND,
  gridDeps,
  type LaunchingParts,
  poolKindsOf,
} from '../../functions/entry/grid-wiring';
import type { RuntimeMakers } from '../../functions/pools';
import { CollectingLogger, FakeLauncher } from '../support/fakes';

const agent = new Agent();
afterAll(() => agent.close());

const config = parseConfig(
  {
    browsers: { chrome: { versions: { stable: { pools: ['fargate', 'hub'] } } } },
    pools: { fargate: { kind: 'ecs' }, hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  },
  { builtInBrowserVersion: 'unused' },
);

/** The entry's parts; `here`: fakes of the kinds on this machine (local, container), for every kind. */
function parts(rest: Partial<LaunchingParts> = {}, here: RuntimeMakers = {}) {
  const made = { ecs: 0, eks: 0 };
  const launcher = new FakeLauncher();
  const never = () => Promise.reject(new Error('not in this test'));
  const given: LaunchingParts = {
    config,
    secret: Buffer.alloc(32, 7),
    logger: new CollectingLogger(),
    metrics: noMetrics,
    sessions: new MemorySessionStore(),
    agent,
    aws: { warmTasks: never, identity: never },
    makers: {
      ecs: async () => {
        made.ecs++;
        return { runtime: { launcher } };
      },
      eks: async () => {
        made.eks++;
        return { runtime: { launcher }, podApis: { aws: never, kubeconfig: never } };
      },
      ...here,
    },
    kinds: poolKindsOf(config),
    ...rest,
  };
  return { given, made, launcher };
}

const local: Launcher = new FakeLauncher();
const recordings = { find: async () => undefined };
// The kinds on this machine, as fakes: the real ones would sweep this machine's browsers and containers.
const onThisMachine: RuntimeMakers = {
  local: async () => ({ runtime: { launcher: local }, artifacts: recordings }),
  container: async () => ({ runtime: { launcher: new FakeLauncher() } }),
};

describe('gridDeps', () => {
  it('gives launchers to the config’s pool kinds only, loading a cloud one with its first use', async () => {
    const { given, made } = parts();
    const deps = await gridDeps(given);
    expect(Object.keys(deps.runtimes).sort()).toEqual(['ecs', 'hub']);
    expect(Object.keys(deps.artifacts ?? {})).toEqual(['hub']);
    expect(made.ecs).toBe(0);
    await deps.runtimes.ecs?.launcher.stop('task', {
      key: 'k',
      pool: config.pools.fargate as never,
      reason: 'deleted',
      upstreamId: '',
    });
    expect(made.ecs).toBe(1);
  });

  it('gives every kind a launcher where a reload may add any, local ones the entry’s own', async () => {
    const { given } = parts({ kinds: EVERY_POOL_KIND }, onThisMachine);
    const deps = await gridDeps(given);
    expect(Object.keys(deps.runtimes).sort()).toEqual(['container', 'ecs', 'eks', 'hub', 'local']);
    expect(deps.runtimes.local?.launcher).toBe(local);
    expect(deps.artifacts?.local).toBe(recordings);
  });

  it('loads the eks kind with its pools’ first browser, not at start', async () => {
    const { given, made } = parts({ kinds: EVERY_POOL_KIND });
    const eks = (await gridDeps(given)).runtimes.eks?.launcher;
    expect(made.eks).toBe(0);
    const pool = { kind: 'eks', name: 'pods', auth: 'aws' } as unknown as Parameters<
      Launcher['stop']
    >[1]['pool'];
    await eks?.stop('pod-1', { key: 'k', pool, reason: 'deleted', upstreamId: '' });
    await eks?.stop('pod-2', { key: 'k', pool, reason: 'deleted', upstreamId: '' });
    expect(made.eks).toBe(1);
  });

  it('gives a process whose browsers another starts one launcher per kind that asks it, and no artifacts', async () => {
    const { given, made } = parts();
    const { aws: _aws, makers: _makers, ...common } = given;
    const elsewhere = new Map<string, FakeLauncher>();
    const deps = await gridDeps({
      ...common,
      kinds: new Set(['hub', 'ecs'] as const),
      launchedElsewhere: (kind) => {
        const launcher = new FakeLauncher();
        elsewhere.set(kind, launcher);
        return { launcher };
      },
    });
    expect(Object.keys(deps.runtimes).sort()).toEqual(['ecs', 'hub']);
    expect(deps.artifacts).toBeUndefined();
    await deps.runtimes.ecs?.launcher.stop('task', {
      key: 'k',
      pool: config.pools.fargate as never,
      reason: 'deleted',
      upstreamId: '',
    });
    expect(elsewhere.get('ecs')?.stops).toEqual(['task']);
    expect(made.ecs).toBe(0);
  });

  it('lists ended ecs sessions with recordings from the store, and only those, each once', async () => {
    const sessions = new MemorySessionStore();
    // A stack that keeps ecs sessions' browser logs in a log group (no video bucket).
    const deployment = JSON.stringify({ browserLogGroup: 'Gridgate-BrowsersLogs-1AB' });
    const { given } = parts({ sessions, deployment }, onThisMachine);
    const deps = await gridDeps({ ...given, kinds: EVERY_POOL_KIND });
    const at = Date.now();
    const recording = { video: true, log: false, retentionMs: 60_000 };
    const record = (key: string, pool: string, more = {}) => ({
      key,
      user: 'alice',
      pool,
      browserName: 'chrome',
      browserVersion: 'stable',
      address: '10.0.1.5:4444',
      handle: `task-${key}`,
      upstreamId: `node-${key}`,
      createdAt: at,
      lastActivityAt: at,
      idleTimeoutMs: 60_000,
      maxAgeMs: 600_000,
      ...more,
    });
    await sessions.add(record('aa00000000000001', 'fargate', { recording, name: 'checkout' }));
    await sessions.add(record('aa00000000000002', 'fargate'));
    // A hub pool's session is not the ecs source's to list, though the store keeps it.
    await sessions.add(record('aa00000000000003', 'hub', { recording }));
    for (const key of ['aa00000000000001', 'aa00000000000002', 'aa00000000000003'])
      await sessions.end(key, 'deleted', at + 1000);
    const source = deps.artifacts?.ecs;
    expect(source?.find).toBeDefined();
    expect(await source?.list?.()).toEqual([
      {
        key: 'aa00000000000001',
        user: 'alice',
        pool: 'fargate',
        browserName: 'chrome',
        browserVersion: 'stable',
        name: 'checkout',
        createdAt: at,
        endedAt: at + 1000,
        endReason: 'deleted',
        // The pool has no recorder, so no video; every ecs task logs.
        log: { fileName: 'aa00000000000001.log' },
        ranAt: {
          address: '10.0.1.5:4444',
          handle: 'task-aa00000000000001',
          upstreamId: 'node-aa00000000000001',
        },
      },
    ]);
    expect((await source?.recorded?.('aa00000000000001'))?.user).toBe('alice');
    expect(await source?.recorded?.('aa00000000000002')).toBeUndefined();
    expect(await source?.recorded?.('aa00000000000003')).toBeUndefined();
    expect(deps.artifacts?.local).toBe(recordings);
  });

  it('lists an ended eks session’s video and kept log where its pool’s recorder uploads, and nothing of a pool without one', async () => {
    const eksConfig = parseConfig(
      {
        browsers: { chrome: { versions: { stable: { pools: ['pods', 'plain'] } } } },
        pools: {
          pods: {
            kind: 'eks',
            cluster: 'platform',
            recorder: {
              image: 'selenium/video:ffmpeg-7.1-20250606',
              bucket: 'recordings-1a2b',
              region: 'eu-west-1',
            },
          },
          plain: { kind: 'eks', cluster: 'platform' },
        },
      },
      { builtInBrowserVersion: 'unused' },
    );
    const sessions = new MemorySessionStore();
    const { given } = parts({ sessions, config: eksConfig, kinds: poolKindsOf(eksConfig) });
    const deps = await gridDeps(given);
    const at = Date.now();
    for (const [key, pool] of [
      ['bb00000000000001', 'pods'],
      ['bb00000000000002', 'plain'],
    ] as const) {
      await sessions.add({
        key,
        user: 'alice',
        pool,
        browserName: 'chrome',
        browserVersion: 'stable',
        address: '10.0.2.7:4444',
        handle: `gg-${key}`,
        upstreamId: `node-${key}`,
        createdAt: at,
        lastActivityAt: at,
        idleTimeoutMs: 60_000,
        maxAgeMs: 600_000,
        recording: { video: true, log: true, retentionMs: 60_000 },
      });
      await sessions.end(key, 'deleted', at + 1000);
    }
    const listed = await deps.artifacts?.eks?.list?.();
    expect(listed?.map((r) => [r.key, r.video, r.log])).toEqual([
      [
        'bb00000000000001',
        { format: 'mp4', fileName: 'bb00000000000001.mp4' },
        { fileName: 'bb00000000000001.log' },
      ],
    ]);
  });

  it('signs with the secret given and keeps the ended sessions given', async () => {
    const ended = new EndedSessions();
    const { given } = parts({ ended });
    const deps = await gridDeps(given);
    expect(deps.ended).toBe(ended);
    const id = deps.tokens.sign(
      {
        key: 'k',
        pool: 'hub',
        address: '127.0.0.1:4444',
        upstreamId: 'u',
        handle: 'h',
        devtools: '',
        createdAt: 1,
        maxAgeMs: 1,
      },
      'guest',
    );
    expect((await gridDeps(parts().given)).tokens.verify(id, 'guest').ok).toBe(true);
    expect((await gridDeps(parts({ secret: Buffer.alloc(32, 8) }).given)).tokens.verify(id, 'guest').ok).toBe(
      false,
    );
  });
});
