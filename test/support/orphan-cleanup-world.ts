/**
 * What the ECS orphan cleanup tests share: a world of ECS tasks (ecs-tasks-mock.ts) in two clusters of
 * ecs pools beside a hub pool, a memory session store and a fake clock at T0, and the cleanup run over
 * them (the ecs kind's part given the world's ECS client), with helpers for a task gridgate started and a running session's record.
 */
import { StopTaskCommand } from '@aws-sdk/client-ecs';
import { afterEach, expect } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import type { SessionRecord } from '../../functions/core/ports';
import { makeEcsCleanup } from '../../functions/pools/ecs/ecs-cleanup';
import { STARTED_BY } from '../../functions/pools/ecs/task-tags';
import type { CleanupContext } from '../../functions/pools/pool-kind';
import { sampleRecord } from '../contract/store-samples';
import { cleanupRuns, NO_AWS_IDENTITY } from './cleanup-runs';
import { EcsTasksMock, gridgateTags, type ModelTask } from './ecs-tasks-mock';
import { CollectingLogger, FixedClock, RecordingMetrics } from './fakes';

export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

export const config = parseConfig(
  {
    browsers: { chrome: { versions: { '156': { pools: ['spot-a', 'spot-b', 'hub'] } } } },
    pools: {
      'spot-a': { kind: 'ecs', cluster: 'browsers-a' },
      'spot-b': { kind: 'ecs', cluster: 'browsers-b' },
      hub: { kind: 'hub', url: 'http://hub.internal:4444/wd/hub' },
    },
    timeouts: { newSession: '60s', maxAge: '1h' },
  },
  { builtInBrowserVersion: 'stable' },
);
export const GRACE = 60 * SECOND; // the cleanup's default
export const LISTING = { startedBy: STARTED_BY, maxResults: 100 };

/** The ECS world of the running test (setup makes a new one). */
export let ecs: EcsTasksMock;
afterEach(() => ecs?.restore());

/** `stopsPerSecond`: the cleanup's bound on StopTask calls; none: the fleet's own. */
export function setup({ stopsPerSecond }: { stopsPerSecond?: number } = {}) {
  ecs = new EcsTasksMock();
  const clock = new FixedClock(T0);
  const sessions = new MemorySessionStore(clock);
  const logger = new CollectingLogger();
  const metrics = new RecordingMetrics();
  const sleeps: number[] = [];
  const client = ecs.client();
  const deps = {
    sessions,
    config,
    logger,
    metrics,
    clock,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      ecs.timeline.push(`sleep ${ms}`);
    },
    stopsPerSecond,
    aws: NO_AWS_IDENTITY,
    makers: { ecs: (context: CleanupContext) => makeEcsCleanup(context, client) },
  };
  const run = cleanupRuns(deps);

  /** A task gridgate's launcher started `ageMs` ago for session `key` of an ecs pool. */
  function task(key: string, ageMs: number, pool = 'spot-a'): ModelTask {
    const cluster = pool === 'spot-b' ? 'browsers-b' : 'browsers-a';
    const launched = T0 - ageMs;
    // ECS's createdAt comes a moment after the launch began; the tag is what counts.
    return ecs.add({
      cluster,
      createdAt: launched + 200,
      startedBy: STARTED_BY,
      tags: gridgateTags(key, pool, launched),
    });
  }

  /** A running session holding a slot; its browser is `handle`. */
  async function session(key: string, handle: string, overrides: Partial<SessionRecord> = {}) {
    const record = sampleRecord(key, {
      pool: 'spot-a',
      handle,
      address: '10.0.1.17:4444',
      createdAt: T0 - 5 * MINUTE,
      lastActivityAt: T0 - SECOND,
      maxAgeMs: 60 * MINUTE,
      ...overrides,
    });
    expect(await sessions.acquire(key, { pool: record.pool, poolLimit: 500, user: record.user })).toEqual({
      ok: true,
    });
    await sessions.add(record);
    return record;
  }

  return { deps, sessions, clock, logger, metrics, sleeps, run, task, session };
}

export const stopped = () => ecs.inputs(StopTaskCommand);
