import { DescribeTasksCommand, ListTasksCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTED_BY } from '../../functions/adapters/aws/task-tags';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import { parseConfig } from '../../functions/core/config';
import type { SessionRecord } from '../../functions/core/ports';
import { type OrphanCleanupOptions, runOrphanCleanup } from '../../functions/entry/aws-cleanup';
import { sampleRecord } from '../contract/session-store.contract';
import { EcsTasksMock, ecsError, gridgateTags, type ModelTask } from '../support/ecs-tasks-mock';
import { CollectingLogger, FixedClock, RecordingMetrics } from '../support/fakes';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;

const config = parseConfig(
  {
    browsers: { chrome: { versions: { '156': { pools: ['spot-a', 'spot-b', 'hub'] } } } },
    pools: {
      'spot-a': { kind: 'ecs', cluster: 'browsers-a' },
      'spot-b': { kind: 'ecs', cluster: 'browsers-b' },
      hub: { kind: 'hub', url: 'http://hub.internal:4444/wd/hub' },
    },
    timeouts: { newSession: '60s', maxAge: '1h' },
  },
  { localBrowserVersion: 'stable' },
);
const GRACE = 60 * SECOND; // the cleanup's default
const LISTING = { startedBy: STARTED_BY, maxResults: 100 };

let ecs: EcsTasksMock;
afterEach(() => ecs?.restore());

function setup() {
  ecs = new EcsTasksMock();
  const clock = new FixedClock(T0);
  const sessions = new MemorySessionStore(clock);
  const logger = new CollectingLogger();
  const metrics = new RecordingMetrics();
  const sleeps: number[] = [];
  const deps = {
    ecs: ecs.client(),
    sessions,
    config,
    logger,
    metrics,
    clock,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      ecs.timeline.push(`sleep ${ms}`);
    },
  };
  const run = (options: OrphanCleanupOptions = {}) => runOrphanCleanup(deps, options);

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

const stopped = () => ecs.inputs(StopTaskCommand);

describe('runOrphanCleanup: finding tasks', () => {
  it('follows ListTasks past 100 tasks and describes them with their tags in batches of 100', async () => {
    const { run, task } = setup();
    // 250 launches 10 s old, except two on the last page that never got a session.
    const tasks = Array.from({ length: 250 }, (_, i) =>
      task(`k${i}`, i === 201 || i === 249 ? 5 * MINUTE : 10 * SECOND),
    );
    const report = await run();

    const listings = ecs.inputs(ListTasksCommand);
    expect(listings).toHaveLength(4);
    expect(listings[0]).toEqual({ cluster: 'browsers-a', ...LISTING });
    expect(listings[1]).toEqual({ cluster: 'browsers-a', ...LISTING, nextToken: expect.any(String) });
    expect(listings[2]).toEqual({ cluster: 'browsers-a', ...LISTING, nextToken: expect.any(String) });
    expect(listings[2]?.nextToken).not.toBe(listings[1]?.nextToken);
    expect(listings[3]).toEqual({ cluster: 'browsers-b', ...LISTING });

    const arns = tasks.map((t) => t.arn);
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([
      { cluster: 'browsers-a', tasks: arns.slice(0, 100), include: ['TAGS'] },
      { cluster: 'browsers-a', tasks: arns.slice(100, 200), include: ['TAGS'] },
      { cluster: 'browsers-a', tasks: arns.slice(200, 250), include: ['TAGS'] },
    ]);
    expect(stopped().map((input) => input.task)).toEqual([tasks[201]?.id, tasks[249]?.id]);
    expect(report.clusters).toEqual([
      { cluster: 'browsers-a', tasks: 250, status: 'done' },
      { cluster: 'browsers-b', tasks: 0, status: 'done' },
    ]);
  });

  it('lists only the clusters of ecs pools, each once', async () => {
    const { run } = setup();
    await run();
    expect(ecs.inputs(ListTasksCommand).map((input) => input.cluster)).toEqual(['browsers-a', 'browsers-b']);
  });
});

describe('runOrphanCleanup: which tasks stop', () => {
  it('keeps the task of a live session', async () => {
    const { run, task, session } = setup();
    await session('live', task('live', 5 * MINUTE).id);
    const report = await run();
    expect(stopped()).toEqual([]);
    expect(report.total).toBe(0);
  });

  it('keeps a task without a record while the new-session timeout has not passed', async () => {
    const { run, task } = setup();
    task('creating', 60 * SECOND + GRACE);
    expect((await run()).total).toBe(0);
    expect(stopped()).toEqual([]);
  });

  it('stops a task whose session never got a record within the timeout, and frees the slot its launch took', async () => {
    const { run, task, sessions } = setup();
    const orphan = task('half-made', 60 * SECOND + GRACE + SECOND);
    await sessions.acquire('half-made', { pool: 'spot-a', poolLimit: 4, user: 'guest' });
    const report = await run();
    expect(stopped()).toEqual([
      {
        cluster: 'browsers-a',
        task: orphan.id,
        reason: 'gridgate cleanup: no session within the new-session timeout',
      },
    ]);
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ 'no session': 1 });
    expect(report.items).toEqual([
      { cluster: 'browsers-a', reason: 'no session', task: orphan.id, session: 'half-made', pool: 'spot-a' },
    ]);
  });

  it('stops a task whose session has ended', async () => {
    const { run, task, session, sessions } = setup();
    const browser = task('done', 5 * MINUTE);
    await session('done', browser.id);
    await sessions.end('done', 'deleted', T0 - SECOND);
    const report = await run();
    expect(stopped()).toEqual([
      { cluster: 'browsers-a', task: browser.id, reason: 'gridgate cleanup: its session has ended' },
    ]);
    expect(report.reaped).toEqual({ 'session ended': 1 });
    expect((await sessions.get('done'))?.endReason).toBe('deleted');
  });

  it('stops the task of a session past its maximum age, ends the session as "max age" and frees its slot', async () => {
    const { run, task, session, sessions, logger } = setup();
    const browser = task('old', 11 * MINUTE);
    await session('old', browser.id, { createdAt: T0 - 10 * MINUTE, maxAgeMs: 10 * MINUTE });
    const report = await run();
    expect(stopped()).toEqual([
      {
        cluster: 'browsers-a',
        task: browser.id,
        reason: 'gridgate cleanup: older than any session may live',
      },
    ]);
    expect(await sessions.get('old')).toMatchObject({ endReason: 'max age', endedAt: T0 });
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ 'max age': 1 });
    expect(logger.fieldsOf('SESSION_TIMED_OUT')).toEqual([
      { session: 'old', user: 'guest', pool: 'spot-a', reason: 'max age', durationMs: 10 * MINUTE },
    ]);
  });

  it('judges a task without gridgate tags by its age alone', async () => {
    const { run } = setup();
    const young = ecs.add({ cluster: 'browsers-a', createdAt: T0 - 30 * MINUTE, startedBy: STARTED_BY });
    const ancient = ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 2 * 60 * MINUTE,
      startedBy: STARTED_BY,
    });
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([ancient.id]);
    expect(report.items).toEqual([{ cluster: 'browsers-a', reason: 'max age', task: ancient.id }]);
    expect(ecs.tasks.get(young.id)?.desiredStatus).toBe('RUNNING');
  });

  it('never sees tasks other software started in the same cluster', async () => {
    const { run } = setup();
    ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 5 * 60 * MINUTE,
      startedBy: 'ecs-svc/9223370556150183303',
    });
    expect((await run()).total).toBe(0);
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([]);
  });
});

describe('runOrphanCleanup: reconciling the store', () => {
  it('ends a running record whose task no longer exists as "browser exited" and frees its slot', async () => {
    const { run, session, sessions, logger } = setup();
    const gone = 'feedfacefeedfacefeedfacefeedface';
    await session('vanished', gone);
    const report = await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([{ cluster: 'browsers-a', tasks: [gone] }]);
    expect(await sessions.get('vanished')).toMatchObject({ endReason: 'browser exited', endedAt: T0 });
    expect(await sessions.running()).toEqual([]);
    expect(await sessions.inUse()).toEqual({});
    expect(stopped()).toEqual([]);
    expect(report.reaped).toEqual({ 'browser exited': 1 });
    expect(logger.fieldsOf('SESSION_ENDED')).toMatchObject([
      { session: 'vanished', reason: 'browser exited' },
    ]);
  });

  it('ends a running record whose task Fargate Spot took back as "reclaimed"', async () => {
    const { run, session, sessions } = setup();
    const spot = ecs.add({
      cluster: 'browsers-a',
      createdAt: T0 - 5 * MINUTE,
      startedBy: STARTED_BY,
      desiredStatus: 'STOPPED',
      lastStatus: 'DEPROVISIONING',
      stopCode: 'SpotInterruption',
    });
    await session('interrupted', spot.id);
    const report = await run();
    expect(await sessions.get('interrupted')).toMatchObject({ endReason: 'reclaimed' });
    expect(await sessions.inUse()).toEqual({});
    expect(report.reaped).toEqual({ reclaimed: 1 });
  });

  it('keeps a record whose task the listing missed but DescribeTasks finds running', async () => {
    const { run, task, session, sessions } = setup();
    const fresh = task('fresh', 30 * SECOND);
    await session('fresh', fresh.id, { createdAt: T0 - 10 * SECOND });
    ecs.notListedYet.add(fresh.id);
    const report = await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([{ cluster: 'browsers-a', tasks: [fresh.id] }]);
    expect((await sessions.get('fresh'))?.endedAt).toBeUndefined();
    expect(stopped()).toEqual([]);
    expect(report.total).toBe(0);
  });

  it('leaves records of hub pools alone', async () => {
    const { run, session, sessions } = setup();
    await session('on-hub', 'hub-handle', { pool: 'hub' });
    await run();
    expect(ecs.inputs(DescribeTasksCommand)).toEqual([]);
    expect((await sessions.get('on-hub'))?.endedAt).toBeUndefined();
    expect(await sessions.inUse()).toEqual({ hub: 1 });
  });
});

/** One of every kind: kept, stopped and reconciled. */
async function mixedWorld(world: ReturnType<typeof setup>) {
  const { task, session, sessions } = world;
  await session('live', task('live', 5 * MINUTE).id);
  task('creating', 20 * SECOND);
  task('half-made', 5 * MINUTE);
  await sessions.acquire('half-made', { pool: 'spot-a', poolLimit: 500, user: 'guest' });
  await session('done', task('done', 5 * MINUTE, 'spot-b').id, { pool: 'spot-b' });
  await sessions.end('done', 'deleted', T0 - MINUTE);
  await session('old', task('old', 61 * MINUTE).id, { createdAt: T0 - 60 * MINUTE });
  await session('vanished', 'feedfacefeedfacefeedfacefeedface');
}

describe('runOrphanCleanup: passes', () => {
  it('in a dry run decides and reports the same, but stops nothing and writes nothing', async () => {
    const dry = setup();
    await mixedWorld(dry);
    const before = { running: await dry.sessions.running(), inUse: await dry.sessions.inUse() };
    const dryReport = await dry.run({ dryRun: true });
    expect(stopped()).toEqual([]);
    expect(await dry.sessions.running()).toEqual(before.running);
    expect(await dry.sessions.inUse()).toEqual(before.inUse);
    expect(dry.metrics.counts).toEqual([]);
    ecs.restore();

    const real = setup();
    await mixedWorld(real);
    const realReport = await real.run();
    expect(stopped()).toHaveLength(3);
    expect(dryReport).toEqual({ ...realReport, dryRun: true });
    expect(realReport.reaped).toEqual({
      'no session': 1,
      'session ended': 1,
      'max age': 1,
      'browser exited': 1,
    });
  });

  it('does nothing new on a second pass right after, even while the listing still shows the stopped tasks', async () => {
    const world = setup();
    await mixedWorld(world);
    expect((await world.run()).total).toBe(4);
    const stops = stopped().length;
    const again = await world.run();
    expect(again.total).toBe(0);
    expect(again.reaped).toEqual({});
    expect(stopped()).toHaveLength(stops);
  });

  it('logs ORPHANS_REMOVED with the counts by reason and counts OrphansReaped per reason', async () => {
    const world = setup();
    await mixedWorld(world);
    await world.run();
    const [line] = world.logger.fieldsOf('ORPHANS_REMOVED');
    expect(line).toMatchObject({
      dryRun: false,
      total: 4,
      reaped: { 'no session': 1, 'session ended': 1, 'max age': 1, 'browser exited': 1 },
      deferred: 0,
    });
    expect(world.metrics.counts).toEqual(
      expect.arrayContaining([
        { name: 'OrphansReaped', dimensions: { reason: 'no session' }, value: 1 },
        { name: 'OrphansReaped', dimensions: { reason: 'session ended' }, value: 1 },
        { name: 'OrphansReaped', dimensions: { reason: 'max age' }, value: 1 },
        { name: 'OrphansReaped', dimensions: { reason: 'browser exited' }, value: 1 },
      ]),
    );
    expect(world.metrics.counts).toHaveLength(4);
  });

  it('frees a slot no session holds once any launch would be over, and only then', async () => {
    const world = setup();
    const claim = { pool: 'spot-a', poolLimit: 500, user: 'guest' };
    const limit = 60 * SECOND + GRACE; // newSession + grace
    world.clock.advance(-(limit + SECOND));
    await world.sessions.acquire('orphaned', claim);
    world.clock.advance(2 * SECOND);
    await world.sessions.acquire('launching', claim);
    world.clock.advance(limit - SECOND); // back at T0: 'orphaned' is past the limit, 'launching' 1 s short
    const live = world.task('live', 10 * MINUTE);
    await world.session('live', live.id, { createdAt: T0 - 10 * MINUTE });

    const dry = await world.run({ dryRun: true });
    expect(dry.reaped).toEqual({ 'stale slot': 1 });
    expect(await world.sessions.inUse()).toEqual({ 'spot-a': 3 });

    const report = await world.run();
    expect(report.reaped).toEqual({ 'stale slot': 1 });
    expect(report.items).toContainEqual(
      expect.objectContaining({ reason: 'stale slot', session: 'orphaned' }),
    );
    expect((await world.sessions.slots()).map((slot) => slot.key).sort()).toEqual(['launching', 'live']);
    expect(await world.sessions.inUse()).toEqual({ 'spot-a': 2 });
  });

  it('reports the sessions in use and the capacity of every pool once a pass, zero included', async () => {
    const world = setup();
    await world.sessions.acquire('live-1', { pool: 'spot-a', poolLimit: 5, user: 'guest' });
    await world.sessions.acquire('live-2', { pool: 'spot-a', poolLimit: 5, user: 'guest' });
    await world.run();
    const active = world.metrics.gauges.filter((gauge) => gauge.name === 'ActiveSessions');
    expect(active).toEqual([
      { name: 'ActiveSessions', value: 2, dimensions: { pool: 'spot-a' } },
      { name: 'ActiveSessions', value: 0, dimensions: { pool: 'spot-b' } },
      { name: 'ActiveSessions', value: 0, dimensions: { pool: 'hub' } },
    ]);
    const capacity = world.metrics.gauges.filter((gauge) => gauge.name === 'PoolCapacity');
    expect(capacity.map((gauge) => gauge.dimensions?.pool)).toEqual(['spot-a', 'spot-b', 'hub']);
    expect(capacity.every((gauge) => gauge.value > 0)).toBe(true);
    // The queue is each router's own: the cleanup knows none.
    expect(world.metrics.gauges.map((gauge) => gauge.name)).not.toContain('QueueWaiting');
  });

  it('paces StopTask: waits between stops, never before the first', async () => {
    const { run, task } = setup();
    const orphans = [task('a', 5 * MINUTE), task('b', 5 * MINUTE), task('c', 5 * MINUTE)];
    await run({ stopsPerSecond: 4 });
    expect(ecs.timeline).toEqual([
      `stop ${orphans[0]?.id}`,
      'sleep 250',
      `stop ${orphans[1]?.id}`,
      'sleep 250',
      `stop ${orphans[2]?.id}`,
    ]);
  });

  it('starts no StopTask after its deadline and reports what it left for the next pass', async () => {
    const { run, task } = setup();
    task('a', 5 * MINUTE);
    task('b', 5 * MINUTE);
    const report = await run({ deadline: T0 });
    expect(stopped()).toEqual([]);
    expect(report.deferred).toBe(2);
    expect(report.total).toBe(0);
  });
});

describe('runOrphanCleanup: ECS trouble', () => {
  it('carries on with the other clusters when one is throttled, and leaves that cluster’s records alone', async () => {
    const { run, task, session, sessions } = setup();
    ecs.fail('ListTasks', 'browsers-a', ecsError('ThrottlingException', 'Rate exceeded'));
    task('stuck-a', 5 * MINUTE);
    await session('looks-gone', 'feedfacefeedfacefeedfacefeedface');
    const orphanB = task('stuck-b', 5 * MINUTE, 'spot-b');
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([orphanB.id]);
    expect(report.clusters).toEqual([
      {
        cluster: 'browsers-a',
        tasks: 0,
        status: 'throttled',
        error: expect.stringContaining('Rate exceeded'),
      },
      { cluster: 'browsers-b', tasks: 1, status: 'done' },
    ]);
    // Without a complete listing, a missing task proves nothing.
    expect((await sessions.get('looks-gone'))?.endedAt).toBeUndefined();
  });

  it('carries on with the other clusters when one fails outright', async () => {
    const { run, task } = setup();
    ecs.fail('DescribeTasks', 'browsers-a', ecsError('ClusterNotFoundException', 'Cluster not found.'));
    task('x', 5 * MINUTE);
    const orphanB = task('y', 5 * MINUTE, 'spot-b');
    const report = await run();
    expect(stopped().map((input) => input.task)).toEqual([orphanB.id]);
    expect(report.clusters[0]).toMatchObject({ cluster: 'browsers-a', status: 'failed' });
  });

  it('leaves the rest of a cluster for the next pass when StopTask is throttled, changing nothing for them', async () => {
    const { run, task, session, sessions } = setup();
    const orphans = [task('a', 5 * MINUTE), task('b', 5 * MINUTE), task('c', 5 * MINUTE)];
    for (const key of ['a', 'b', 'c'])
      await sessions.acquire(key, { pool: 'spot-a', poolLimit: 9, user: 'guest' });
    await session('vanished', 'feedfacefeedfacefeedfacefeedface');
    ecs.throttleStopsAfter(1);
    const first = await run();
    // Ending a record needs no ECS call: throttled stops do not hold it up.
    expect(first.reaped).toEqual({ 'browser exited': 1, 'no session': 1 });
    expect(first.total).toBe(2);
    expect(first.deferred).toBe(2);
    expect(first.clusters[0]).toMatchObject({ status: 'throttled' });
    expect(await sessions.inUse()).toEqual({ 'spot-a': 2 });

    ecs.throttleStopsAfter(Number.POSITIVE_INFINITY);
    const second = await run();
    expect(second.items.map((item) => item.task)).toEqual([orphans[1]?.id, orphans[2]?.id]);
    expect(await sessions.inUse()).toEqual({});
  });

  it('counts a task that vanished before its StopTask as stopped', async () => {
    const { run, task } = setup();
    const orphan = task('a', 5 * MINUTE);
    ecs.goneBeforeStop.add(orphan.id);
    const report = await run();
    expect(stopped()).toEqual([expect.objectContaining({ task: orphan.id })]);
    expect(report.reaped).toEqual({ 'no session': 1 });
    expect(report.clusters[0]?.status).toBe('done');
  });
});
