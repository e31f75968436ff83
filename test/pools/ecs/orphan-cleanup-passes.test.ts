/** One ECS orphan cleanup pass as a whole: dry runs, repeated passes, what it logs and counts, pacing, deadlines. */
import { describe, expect, it } from 'vitest';
import { ecs, GRACE, MINUTE, SECOND, setup, stopped, T0 } from '../../support/orphan-cleanup-world';

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

describe('the cleanup over ecs tasks: passes', () => {
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
    const { run, task } = setup({ stopsPerSecond: 4 });
    const orphans = [task('a', 5 * MINUTE), task('b', 5 * MINUTE), task('c', 5 * MINUTE)];
    await run();
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
