import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../../functions/core/config';
import type { MetricDimensions, MetricName, Metrics } from '../../../functions/core/ports';
import {
  handleTaskStateChange,
  poolOfTask,
  type TaskStateChangeEvent,
} from '../../../functions/pools/ecs/spot-interruption';
import { CollectingLogger, FixedClock } from '../../support/fakes';

// A Fargate Spot notice as EventBridge delivers it (ECS developer guide, "Amazon ECS task state change
// events" and "Fargate Spot termination notices"), for a task gridgate started.
const SPOT_EVENT = JSON.parse(
  readFileSync(new URL('./events/ecs-task-state-change-spot.json', import.meta.url), 'utf8'),
) as TaskStateChangeEvent & { detail: Record<string, unknown> };
const TASK_ID = '5d8c2f0e9a7b4c3d8e1f2a3b4c5d6e7f';
const STOPPING_AT = Date.parse('2026-11-29T14:03:06.843Z');

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '156': { pools: ['chrome-spot', 'chrome-arm'] } } } },
    pools: {
      'chrome-spot': { kind: 'ecs', cluster: 'gridgate-browsers', taskDefinition: 'gridgate-chrome' },
      'chrome-arm': {
        kind: 'ecs',
        cluster: 'arn:aws:ecs:us-east-1:111122223333:cluster/gridgate-browsers',
        taskDefinition: 'gridgate-chromium-arm:3',
        architecture: 'arm64',
        spot: false,
      },
    },
  },
  { builtInBrowserVersion: 'stable' },
);

class RecordingMetrics implements Metrics {
  readonly counts: { name: MetricName; dimensions?: MetricDimensions }[] = [];
  count(name: MetricName, dimensions?: MetricDimensions) {
    this.counts.push({ name, dimensions });
  }
  timing() {}
  gauge() {}
}

function setup() {
  const sessions = new MemorySessionStore();
  const metrics = new RecordingMetrics();
  const logger = new CollectingLogger();
  const clock = new FixedClock(Date.UTC(2026, 10, 29, 14, 3, 30));
  const handle = (event: TaskStateChangeEvent) =>
    handleTaskStateChange({ sessions, metrics, logger, clock, config }, event);
  return { sessions, metrics, logger, clock, handle };
}

function withDetail(changes: Record<string, unknown>): TaskStateChangeEvent {
  return { ...SPOT_EVENT, detail: { ...SPOT_EVENT.detail, ...changes } };
}

describe('handleTaskStateChange', () => {
  it('marks the interrupted task’s browser reclaimed, by its bare task ID, at stoppingAt', async () => {
    const { handle, sessions, metrics } = setup();
    expect(await handle(SPOT_EVENT)).toEqual({ outcome: 'marked', handle: TASK_ID, pool: 'chrome-spot' });
    expect(await sessions.reclaimed(TASK_ID)).toEqual({ at: STOPPING_AT, reason: 'SpotInterruption' });
    expect(metrics.counts).toEqual([{ name: 'SpotInterruptions', dimensions: { pool: 'chrome-spot' } }]);
  });

  it('treats a TerminationNotice the same way', async () => {
    const { handle, sessions } = setup();
    expect(await handle(withDetail({ stopCode: 'TerminationNotice' }))).toMatchObject({ outcome: 'marked' });
    expect(await sessions.reclaimed(TASK_ID)).toEqual({ at: STOPPING_AT, reason: 'TerminationNotice' });
  });

  it('uses the event’s time when the detail has no stoppingAt', async () => {
    const { handle, sessions } = setup();
    await handle(withDetail({ stoppingAt: undefined }));
    expect(await sessions.reclaimed(TASK_ID)).toMatchObject({ at: Date.parse('2026-11-29T14:03:07Z') });
  });

  it('marks and counts a task once, however often EventBridge delivers its notice and its later states', async () => {
    const { handle, sessions, metrics } = setup();
    await handle(SPOT_EVENT);
    expect(await handle(SPOT_EVENT)).toEqual({
      outcome: 'already marked',
      handle: TASK_ID,
      pool: 'chrome-spot',
    });
    const stopped = withDetail({
      lastStatus: 'STOPPED',
      stoppedAt: '2026-11-29T14:05:01.002Z',
      stoppingAt: '2026-11-29T14:05:00.000Z',
    });
    expect(await handle(stopped)).toMatchObject({ outcome: 'already marked' });
    expect(await sessions.reclaimed(TASK_ID)).toEqual({ at: STOPPING_AT, reason: 'SpotInterruption' });
    expect(metrics.counts).toHaveLength(1);
  });

  it('ignores tasks gridgate did not start', async () => {
    const { handle, sessions, metrics } = setup();
    expect(await handle(withDetail({ startedBy: 'ecs-svc/9223370556150183303' }))).toEqual({
      outcome: 'ignored',
    });
    expect(await handle(withDetail({ startedBy: undefined }))).toEqual({ outcome: 'ignored' });
    expect(await sessions.reclaimed(TASK_ID)).toBeUndefined();
    expect(metrics.counts).toEqual([]);
  });

  it('ignores state changes that are not a Spot notice', async () => {
    const { handle, sessions, metrics } = setup();
    for (const stopCode of ['UserInitiated', 'EssentialContainerExited', 'TaskFailedToStart', undefined]) {
      expect(await handle(withDetail({ stopCode }))).toEqual({ outcome: 'ignored' });
    }
    expect(await handle({ ...SPOT_EVENT, 'detail-type': 'ECS Container Instance State Change' })).toEqual({
      outcome: 'ignored',
    });
    expect(await handle({ ...SPOT_EVENT, source: 'my.app' })).toEqual({ outcome: 'ignored' });
    expect(await sessions.reclaimed(TASK_ID)).toBeUndefined();
    expect(metrics.counts).toEqual([]);
  });

  it('ignores events without the shape it needs instead of throwing', async () => {
    const { handle } = setup();
    for (const event of [
      undefined,
      null,
      {},
      { source: 'aws.ecs', 'detail-type': 'ECS Task State Change' },
    ]) {
      expect(await handle(event as unknown as TaskStateChangeEvent)).toEqual({ outcome: 'ignored' });
    }
    expect(await handle(withDetail({ taskArn: 42 }))).toEqual({ outcome: 'ignored' });
  });

  it('counts without a pool when the config names no pool for the task', async () => {
    const { handle, metrics } = setup();
    const event = withDetail({ clusterArn: 'arn:aws:ecs:us-east-1:111122223333:cluster/elsewhere' });
    expect(await handle(event)).toMatchObject({ outcome: 'marked', pool: undefined });
    expect(metrics.counts).toEqual([{ name: 'SpotInterruptions', dimensions: {} }]);
  });
});

describe('poolOfTask', () => {
  const cluster = 'arn:aws:ecs:us-east-1:111122223333:cluster/gridgate-browsers';
  const definition = (familyRevision: string) =>
    `arn:aws:ecs:us-east-1:111122223333:task-definition/${familyRevision}`;

  it('tells pools sharing a cluster apart by task definition (family, family:revision or ARN)', () => {
    expect(poolOfTask(config, cluster, definition('gridgate-chrome:7'))?.name).toBe('chrome-spot');
    expect(poolOfTask(config, cluster, definition('gridgate-chromium-arm:3'))?.name).toBe('chrome-arm');
    expect(poolOfTask(config, cluster, definition('gridgate-chromium-arm:4'))).toBeUndefined();
  });

  it('names no pool for another cluster or a cluster that only ends alike', () => {
    expect(
      poolOfTask(config, 'arn:aws:ecs:us-east-1:111122223333:cluster/other', definition('gridgate-chrome:7')),
    ).toBeUndefined();
    expect(
      poolOfTask(
        config,
        'arn:aws:ecs:us-east-1:111122223333:cluster/old-gridgate-browsers',
        definition('gridgate-chrome:7'),
      ),
    ).toBeUndefined();
  });
});
