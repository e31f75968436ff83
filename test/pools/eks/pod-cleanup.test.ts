import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../functions/adapters/memory/memory-session-store';
import type { SessionRecord } from '../../../functions/core/ports';
import { makeEksCleanup } from '../../../functions/pools/eks/eks-cleanup';
import { EksFleet } from '../../../functions/pools/eks/eks-fleet';
import { type EksPodApi, KubernetesApiError } from '../../../functions/pools/eks/eks-pod-api';
import { podManifest } from '../../../functions/pools/eks/eks-pod-spec';
import type { DeployedEksPool } from '../../../functions/pools/eks/eks-pool-check';
import type { PodLogToKeep } from '../../../functions/pools/eks/pod-log-archive';
import { type CleanupPassOptions, runCleanupPass } from '../../../functions/use-cases/cleanup-pass';
import { sampleRecord } from '../../contract/store-samples';
import { cleanupRuns, NO_AWS_IDENTITY } from '../../support/cleanup-runs';
import { FakeKubernetesApi } from '../../support/fake-kubernetes-api';
import { CollectingLogger, FixedClock, RecordingMetrics } from '../../support/fakes';
import { configWithOnePool } from '../../support/one-pool-config';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const TOKEN = 'k8s-aws-v1.test';

let kube: FakeKubernetesApi;
let api: EksPodApi;
beforeEach(async () => {
  kube = await FakeKubernetesApi.start({ token: TOKEN });
  api = kube.podApi();
});
afterEach(() => kube.close());

function setup() {
  const config = configWithOnePool(
    'pods',
    { kind: 'eks', cluster: 'browsers', endpoint: 'https://api.example', networks: ['10.1.0.0/16'] },
    // The ages below are set against a one-minute new-session timeout (eks pools default to three).
    { timeouts: { newSession: '60s' } },
  );
  const pool = config.pools.pods as DeployedEksPool;
  const clock = new FixedClock(T0);
  const sessions = new MemorySessionStore(clock);
  const logger = new CollectingLogger();
  // Each pod whose log the pass would keep, in the order the calls were made.
  const kept: string[] = [];
  const keepLog = async (toKeep: PodLogToKeep) => {
    kept.push(
      `${toKeep.pool.name} ${toKeep.pod} ${toKeep.sessionKey} ${kube.pods.has(`gridgate/${toKeep.pod}`)}`,
    );
  };
  const deps = { pods: { api: () => api, keepLog }, sessions, config, logger, clock };
  /** One cleanup pass over the pods alone. */
  const sweep = (options: CleanupPassOptions = {}) =>
    runCleanupPass(
      { ...deps, metrics: new RecordingMetrics() },
      [new EksFleet(deps.pods.api, keepLog)],
      options,
    );

  /** A pod gridgate launched `ageMs` ago for session `key`. */
  async function pod(key: string, ageMs: number): Promise<string> {
    const name = `gg-${key}`;
    const request = {
      pool,
      key,
      user: 'ann',
      idleTimeoutMs: 300_000,
      inUseMs: 3_660_000,
      capabilities: {},
      signal: new AbortController().signal,
    };
    await api.create('gridgate', podManifest(pool, request, name, T0 - ageMs));
    return name;
  }

  async function session(key: string, handle: string, overrides: Partial<SessionRecord> = {}) {
    const record = sampleRecord(key, {
      pool: 'pods',
      handle,
      createdAt: T0 - 5 * MINUTE,
      maxAgeMs: 60 * MINUTE,
      ...overrides,
    });
    await sessions.acquire(key, { pool: 'pods', poolLimit: 50, user: record.user });
    await sessions.add(record);
    return record;
  }
  return { deps, sessions, clock, logger, sweep, pod, session, kept };
}

const names = () => [...kube.pods.values()].map((fake) => fake.pod.metadata.name).sort();

describe('the cleanup pass over EKS pods', () => {
  it('lists the grid pods by label once and deletes those no session needs, by the same rules as tasks', async () => {
    const { sessions, sweep, pod, session } = setup();
    await pod('creating', 10 * SECOND);
    await pod('nosession', 3 * MINUTE);
    await session('live', await pod('live', 5 * MINUTE));
    await session('ended', await pod('ended', 5 * MINUTE));
    await sessions.end('ended', 'deleted', T0 - MINUTE);
    await session('old', await pod('old', 63 * MINUTE), { createdAt: T0 - 30 * MINUTE });
    await session('expired', await pod('expired', 61 * MINUTE), { createdAt: T0 - 61 * MINUTE });
    kube.calls.length = 0;

    const result = await sweep();

    expect(kube.callsOf('GET')).toEqual([
      { path: '/api/v1/namespaces/gridgate/pods?labelSelector=gridgate%3Dtrue&limit=500' },
    ]);
    expect(names()).toEqual(['gg-creating', 'gg-live']);
    expect(result.reaped).toEqual({ 'no session': 1, 'session ended': 1, 'max age': 2 });
    expect(result.clusters).toEqual([{ cluster: 'browsers/gridgate', tasks: 6, status: 'done' }]);
    expect((await sessions.get('expired'))?.endReason).toBe('max age');
    expect((await sessions.get('old'))?.endReason).toBe('max age');
    expect(await sessions.inUse()).toEqual({ pods: 1 });
  });

  it('keeps the browser log of each pod it deletes that carries a session key, while the pod is still there', async () => {
    const { sessions, sweep, pod, session, kept } = setup();
    await pod('nosession', 3 * MINUTE);
    await session('ended', await pod('ended', 5 * MINUTE));
    await sessions.end('ended', 'deleted', T0 - MINUTE);
    await session('expired', await pod('expired', 61 * MINUTE), { createdAt: T0 - 61 * MINUTE });
    await session('live', await pod('live', 5 * MINUTE));
    await sweep();
    // A pod whose record is missing still names its session (its label): its log is kept under that key.
    // The live one is not stopped.
    expect(kept.sort()).toEqual([
      'pods gg-ended ended true',
      'pods gg-expired expired true',
      'pods gg-nosession nosession true',
    ]);
    expect(names()).toEqual(['gg-live']);
  });

  it('ends a running record whose pod is gone or finished, then deletes the finished pod on the next pass', async () => {
    const { sessions, sweep, pod, session } = setup();
    await session('gone', 'gg-gone');
    await session('crashed', await pod('crashed', 5 * MINUTE));
    (kube.pods.get('gridgate/gg-crashed') as { pod: { status: unknown } }).pod.status = {
      phase: 'Failed',
      reason: 'OOMKilled',
    };

    const first = await sweep();
    expect(first.reaped).toEqual({ 'browser exited': 2 });
    expect((await sessions.get('crashed'))?.endReason).toBe('browser exited');
    expect(names()).toEqual(['gg-crashed']);

    const second = await sweep();
    expect(second.reaped).toEqual({ 'session ended': 1 });
    expect(names()).toEqual([]);
  });

  it('decides without deleting or writing in a dry run', async () => {
    const { sessions, sweep, pod, session } = setup();
    await pod('nosession', 3 * MINUTE);
    await session('gone', 'gg-gone');
    const result = await sweep({ dryRun: true });
    expect(result.reaped).toEqual({ 'no session': 1, 'browser exited': 1 });
    expect(kube.callsOf('DELETE')).toEqual([]);
    expect((await sessions.get('gone'))?.endedAt).toBeUndefined();
  });

  it('reports a throttled cluster and leaves its pods for the next pass', async () => {
    const { sweep, pod } = setup();
    await pod('nosession', 3 * MINUTE);
    kube.throttleNext = 1;
    const result = await sweep();
    expect(result.clusters).toEqual([
      { cluster: 'browsers/gridgate', tasks: 0, status: 'throttled', error: expect.stringContaining('429') },
    ]);
    expect(names()).toEqual(['gg-nosession']);
  });

  it('logs the end of each session it ends, as for ECS tasks', async () => {
    const { logger, sweep, pod, session } = setup();
    await session('gone', 'gg-gone');
    await session('expired', await pod('expired', 61 * MINUTE), { createdAt: T0 - 61 * MINUTE });
    await sweep();
    expect(logger.fieldsOf('SESSION_ENDED')).toEqual([
      expect.objectContaining({
        session: 'gone',
        pool: 'pods',
        reason: 'browser exited',
        durationMs: 5 * MINUTE,
      }),
    ]);
    expect(logger.fieldsOf('SESSION_TIMED_OUT')).toEqual([
      expect.objectContaining({ session: 'expired', pool: 'pods', reason: 'max age' }),
    ]);
  });

  it('leaves the rest of a namespace for the next pass when a delete is throttled, and counts it deferred', async () => {
    const { deps, sessions, pod } = setup();
    await pod('first', 3 * MINUTE);
    await pod('second', 3 * MINUTE);
    const throttled: EksPodApi = {
      create: (namespace, pod) => api.create(namespace, pod),
      read: (namespace, name) => api.read(namespace, name),
      list: (namespace, selector) => api.list(namespace, selector),
      log: (namespace, name, options) => api.log(namespace, name, options),
      delete: async () => {
        throw new KubernetesApiError(429, 'TooManyRequests', 'Too many requests, please try again later.');
      },
    };
    const fleet = new EksFleet(
      () => throttled,
      async () => {},
    );
    const result = await runCleanupPass({ ...deps, sessions, metrics: new RecordingMetrics() }, [fleet]);
    expect(result.clusters).toEqual([
      { cluster: 'browsers/gridgate', tasks: 2, status: 'throttled', error: expect.stringContaining('429') },
    ]);
    expect(result.deferred).toBe(2);
    expect(result.reaped).toEqual({});
    expect(names()).toEqual(['gg-first', 'gg-second']);
  });

  it('names the pool of each pod from its label', async () => {
    const { sweep, pod } = setup();
    await pod('nosession', 3 * MINUTE);
    const result = await sweep({ dryRun: true });
    expect(result.items).toEqual([
      {
        cluster: 'browsers/gridgate',
        reason: 'no session',
        task: 'gg-nosession',
        session: 'nosession',
        pool: 'pods',
      },
    ]);
  });
});

describe('the scheduled cleanup with eks pools', () => {
  it('sweeps the pods through the eks kind, and counts them in its report and metrics', async () => {
    const { deps, pod } = setup();
    await pod('nosession', 3 * MINUTE);
    const metrics = new RecordingMetrics();
    // No ecs pool in this config: the ecs kind's part is never made, so ECS is never called.
    const made: string[] = [];
    const run = cleanupRuns({
      ...deps,
      metrics,
      aws: NO_AWS_IDENTITY,
      makers: {
        ecs: async () => {
          made.push('ecs');
          throw new Error('the ecs kind was loaded for a config without ecs pools');
        },
        eks: (context) => {
          made.push('eks');
          return makeEksCleanup(context, deps.pods);
        },
      },
    });
    const report = await run();
    expect(report.reaped).toEqual({ 'no session': 1 });
    expect(names()).toEqual([]);
    expect(metrics.counts).toContainEqual({
      name: 'OrphansReaped',
      dimensions: { reason: 'no session' },
      value: 1,
    });
    // Made once, for every pass of the process.
    await run();
    expect(made).toEqual(['eks']);
  });
});
