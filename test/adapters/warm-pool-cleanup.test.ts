/**
 * The cleanup's warm pool work (ecs-warm-pool.ts through runOrphanCleanup) against a mocked ECS API whose
 * tasks the test sets, an in-memory warm store, and a real /status endpoint on 127.0.0.1 standing in for a
 * warm task's browser node. Time is a fixed clock the test moves.
 */
import {
  DescribeTasksCommand,
  type DescribeTasksCommandInput,
  ECSClient,
  ECSServiceException,
  ListTasksCommand,
  type ListTasksCommandInput,
  RunTaskCommand,
  type RunTaskCommandInput,
  StopTaskCommand,
  type StopTaskCommandInput,
  type Tag,
  type Task,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { SessionStart } from '../../functions/core/warm-demand';
import type { WarmTask } from '../../functions/core/warm-task-store';
import { type OrphanCleanupOptions, runOrphanCleanup } from '../../functions/entry/aws-cleanup';
import { sampleRecord } from '../contract/session-store.contract';
import { useBrowserNodeStatus } from '../support/browser-node-status';
import {
  refuseDescribeTasks,
  refusedAsSdk,
  refuseListTasks,
  refuseRunTask,
  refuseStopTask,
} from '../support/ecs-api-rules';
import { CollectingLogger, FixedClock, RecordingMetrics } from '../support/fakes';
import { MemoryWarmTasks } from '../support/memory-warm-tasks';
import { configWithOnePool } from '../support/one-pool-config';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const CLUSTER = 'browsers';

/** A warm task's browser node, always ready. */
const node = useBrowserNodeStatus();

/** null: the pool has no warm setting. */
function gridConfig(warm: unknown = { min: 1, max: 3, idleTtl: '10m' }) {
  return configWithOnePool(
    'fargate',
    {
      kind: 'ecs',
      cluster: CLUSTER,
      taskDefinition: 'gridgate-chrome:3',
      subnets: ['subnet-a'],
      securityGroups: ['sg-browsers'],
      networks: ['127.0.0.0/8'],
      port: node.port,
      maxSessions: 5,
      ...(warm === null ? {} : { warm }),
    },
    { timeouts: { newSession: '60s', idle: '5m', maxAge: '1h' } },
  );
}

/** ECS as the cleanup sees it: the test's tasks, RunTask adding PROVISIONING ones, StopTask stopping. */
class TasksModel {
  readonly tasks: Task[] = [];
  runTask: (input: RunTaskCommandInput) => Task | Error = (input) =>
    this.add(input.tags ?? [], 'PROVISIONING');
  private next = 0;

  add(tags: Tag[], lastStatus = 'RUNNING', ip?: string): Task {
    const id = (++this.next).toString(16).padStart(32, 'a');
    const task: Task = {
      taskArn: `arn:aws:ecs:us-east-1:123456789012:task/${CLUSTER}/${id}`,
      lastStatus,
      desiredStatus: 'RUNNING',
      startedBy: 'gridgate',
      createdAt: new Date(T0 - MINUTE),
      tags,
      attachments: ip
        ? [{ type: 'ElasticNetworkInterface', details: [{ name: 'privateIPv4Address', value: ip }] }]
        : [],
    };
    this.tasks.push(task);
    return task;
  }
}

const idOf = (task: Task) => String(task.taskArn).slice(-32);

function warmTags(launchedAt: number, state = 'unclaimed', session?: string): Tag[] {
  return [
    { key: 'gridgate', value: 'true' },
    { key: 'gridgate:pool', value: 'fargate' },
    { key: 'gridgate:created-at', value: String(launchedAt) },
    { key: 'gridgate:warm', value: state },
    ...(session ? [{ key: 'gridgate:session', value: session }] : []),
  ];
}

const ecsMock = mockClient(ECSClient);

function setup(config = gridConfig()) {
  const model = new TasksModel();
  ecsMock.reset();
  // Every call is checked against what ECS refuses; a startedBy listing shows stopped tasks too.
  ecsMock.on(ListTasksCommand).callsFake(
    (input: ListTasksCommandInput) =>
      refusedAsSdk(() => refuseListTasks(input)) ?? {
        taskArns: model.tasks
          .filter((task) => task.startedBy === input.startedBy && input.cluster === CLUSTER)
          .map((task) => task.taskArn),
      },
  );
  ecsMock.on(DescribeTasksCommand).callsFake(
    (input: DescribeTasksCommandInput) =>
      refusedAsSdk(() => refuseDescribeTasks(input)) ?? {
        tasks: model.tasks.filter((task) => input.tasks?.includes(String(task.taskArn))),
      },
  );
  ecsMock.on(RunTaskCommand).callsFake((input: RunTaskCommandInput) => {
    const refused = refusedAsSdk(() => refuseRunTask(input, 'browser'));
    if (refused) return refused;
    const answer = model.runTask(input);
    if (answer instanceof Error) throw answer;
    return { tasks: [answer], failures: [] };
  });
  ecsMock.on(StopTaskCommand).callsFake((input: StopTaskCommandInput) => {
    const refused = refusedAsSdk(() => refuseStopTask(input));
    if (refused) return refused;
    const task = model.tasks.find((t) => idOf(t) === input.task || t.taskArn === input.task);
    if (task) task.desiredStatus = 'STOPPED';
    return { task };
  });
  const clock = new FixedClock(T0);
  const sessions = new MemorySessionStore(clock);
  const warm = new MemoryWarmTasks();
  const starts: SessionStart[] = [];
  const metrics = new RecordingMetrics();
  const deps = {
    ecs: new ECSClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
    }),
    sessions,
    config,
    logger: new CollectingLogger(),
    metrics,
    clock,
    sleep: async () => {},
    warm: {
      warm,
      starts: { startedSince: async (since: number) => starts.filter((s) => s.createdAt >= since) },
      intervalMs: MINUTE,
      random: () => 0.5,
    },
  };
  const run = (options: OrphanCleanupOptions = {}) => runOrphanCleanup(deps, options);
  const idleEntry = (task: Task, readyAt: number): WarmTask => ({
    pool: 'fargate',
    taskId: idOf(task),
    taskArn: String(task.taskArn),
    address: `127.0.0.1:${node.port}`,
    startedAt: readyAt - MINUTE,
    readyAt,
    state: 'idle',
  });
  return { model, clock, sessions, warm, starts, metrics, run, idleEntry };
}

const runTaskInputs = () => ecsMock.commandCalls(RunTaskCommand).map((call) => call.args[0].input);
const stopInputs = () => ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input);

beforeEach(() => ecsMock.reset());

describe('the cleanup on a warm pool: starting tasks', () => {
  it('tops an empty pool up to min with Spot tasks tagged warm and unclaimed, for no session', async () => {
    const { run } = setup();

    const report = await run();

    const inputs = runTaskInputs();
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({
      cluster: CLUSTER,
      taskDefinition: 'gridgate-chrome:3',
      count: 1,
      capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }],
      startedBy: 'gridgate',
      overrides: {
        containerOverrides: [
          { name: 'browser', environment: [{ name: 'SE_NODE_SESSION_TIMEOUT', value: '300' }] },
        ],
      },
      tags: warmTags(T0),
    });
    expect(inputs[0]?.clientToken).toMatch(/^warm-[0-9a-f-]{36}-0$/);
    expect(report.warm).toEqual({
      fargate: { target: 1, idle: 0, starting: 1, registered: 0, started: 1, stopped: {} },
    });
  });

  it('sizes the pool from the busiest recent minute, within max and the free capacity', async () => {
    const { run, starts, sessions } = setup();
    // Four sessions started in one minute five minutes ago; three slots of five are held now.
    for (const s of [5, 5.2, 5.5, 5.9]) starts.push({ pool: 'fargate', createdAt: T0 - s * MINUTE });
    for (const key of ['a', 'b', 'c'])
      await sessions.acquire(key, { pool: 'fargate', poolLimit: 5, user: 'u' });

    const report = await run();

    // Target 3 (four capped at max), but only 5 - 3 = 2 are free.
    expect(report.warm?.fargate).toMatchObject({ target: 3, started: 2 });
    expect(runTaskInputs()).toHaveLength(2);
  });

  it('counts warm tasks still starting, and starts none past the target', async () => {
    const { run, model } = setup();
    model.add(warmTags(T0 - 20 * SECOND), 'PENDING');

    const report = await run();

    expect(report.warm?.fargate).toMatchObject({ target: 1, starting: 1, started: 0 });
    expect(runTaskInputs()).toEqual([]);
  });

  it('reports a throttled RunTask and tries again next pass, the rest of the pass done', async () => {
    const { run, model } = setup();
    model.runTask = () =>
      new ECSServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: 'Rate exceeded',
        $metadata: { httpStatusCode: 400 },
      });

    const report = await run();

    expect(report.warm?.fargate).toMatchObject({
      started: 0,
      error: expect.stringMatching(/ThrottlingException/),
    });
    expect(report.clusters).toEqual([{ cluster: CLUSTER, tasks: 0, status: 'done' }]);
  });

  it('decides but neither starts nor stops anything in a dry run', async () => {
    const { run, model, warm, idleEntry, clock } = setup();
    const old = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(old, T0 - 20 * MINUTE));
    clock.advance(0);

    const report = await run({ dryRun: true });

    expect(report.warm?.fargate).toMatchObject({ started: 1, stopped: { 'warm expired': 1 } });
    expect(runTaskInputs()).toEqual([]);
    expect(stopInputs()).toEqual([]);
    expect(warm.tasks.has(idOf(old))).toBe(true);
  });
});

describe('the cleanup on a warm pool: registering and stopping', () => {
  it('registers a RUNNING warm task whose /status says ready, and leaves one not answering as starting', async () => {
    const { run, model, warm } = setup(gridConfig({ min: 2, max: 2 }));
    const ready = model.add(warmTags(T0 - 40 * SECOND), 'RUNNING', '127.0.0.1');
    // Nothing listens on 127.0.0.9: a node still starting.
    const silent = model.add(warmTags(T0 - 30 * SECOND), 'RUNNING', '127.0.0.9');

    const report = await run();

    expect([...warm.tasks.values()]).toEqual([
      {
        pool: 'fargate',
        taskId: idOf(ready),
        taskArn: ready.taskArn,
        address: `127.0.0.1:${node.port}`,
        startedAt: T0 - 40 * SECOND,
        readyAt: T0,
        state: 'idle',
      },
    ]);
    expect(warm.tasks.has(idOf(silent))).toBe(false);
    expect(report.warm?.fargate).toMatchObject({ idle: 1, starting: 1, registered: 1, started: 0 });
    expect(stopInputs()).toEqual([]);
  });

  it('never reaps an idle warm task within its TTL, however old the task', async () => {
    const { run, model, warm, idleEntry } = setup();
    // Older than newSession + maxAge + grace: a session task this old would be stopped.
    const task = model.add(warmTags(T0 - 2 * 60 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 9 * MINUTE));

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(report.warm?.fargate).toMatchObject({ idle: 1, started: 0 });
  });

  it('stops an idle task past its TTL, forgets it, replaces it, and counts no orphan', async () => {
    const { run, model, warm, idleEntry, metrics } = setup();
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 11 * MINUTE));

    const report = await run();

    expect(stopInputs()).toEqual([
      { cluster: CLUSTER, task: idOf(task), reason: 'gridgate cleanup: warm task idle past its TTL' },
    ]);
    expect(warm.tasks.size).toBe(0);
    expect(report.warm?.fargate).toMatchObject({ stopped: { 'warm expired': 1 }, started: 1 });
    expect(report.reaped).toEqual({});
    expect(metrics.counts.filter((c) => c.name === 'OrphansReaped')).toEqual([]);
  });

  it('leaves a task past its TTL that a router claimed after the cleanup read the store', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3, idleTtl: '10m' }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 11 * MINUTE));
    const list = warm.list.bind(warm);
    warm.list = async (pool) => {
      const read = await list(pool);
      await warm.claim(pool, { key: 's1', at: T0 });
      return read;
    };

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(warm.tasks.get(idOf(task))).toMatchObject({ state: 'claimed', session: 's1' });
    expect(report.warm?.fargate?.stopped).toEqual({});
  });

  it('stops a warm task that got no store entry within the new-session timeout', async () => {
    const { run, model } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 3 * MINUTE), 'PENDING');

    const report = await run();

    expect(stopInputs()).toEqual([
      { cluster: CLUSTER, task: idOf(task), reason: 'gridgate cleanup: warm task never became ready' },
    ]);
    expect(report.warm?.fargate?.stopped).toEqual({ 'warm never ready': 1 });
  });

  it('drains the warm tasks of a pool that no longer keeps any', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig(null));
    const task = model.add(warmTags(T0 - 5 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - MINUTE));

    const report = await run();

    expect(stopInputs().map((input) => input.task)).toEqual([idOf(task)]);
    expect(runTaskInputs()).toEqual([]);
    expect(warm.tasks.size).toBe(0);
    expect(report.warm?.fargate?.stopped).toEqual({ 'warm expired': 1 });
  });

  it('forgets the entry of a warm task that is gone', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const gone = model.add(warmTags(T0 - 5 * MINUTE), 'STOPPED', '127.0.0.1');
    gone.desiredStatus = 'STOPPED';
    await warm.register(idleEntry(gone, T0 - MINUTE));

    await run();

    expect(warm.tasks.size).toBe(0);
  });
});

describe('the cleanup on a warm pool: claimed tasks', () => {
  it('keeps a task claimed in the store but not tagged yet while its session is being created', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 10 * SECOND });

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(warm.tasks.get(idOf(task))?.state).toBe('claimed');
  });

  it('stops a claimed task whose claim never became a session, as an orphan', async () => {
    const { run, model, warm, idleEntry } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 30 * MINUTE), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 3 * MINUTE });

    const report = await run();

    expect(stopInputs()).toEqual([
      {
        cluster: CLUSTER,
        task: idOf(task),
        reason: 'gridgate cleanup: no session within the new-session timeout',
      },
    ]);
    expect(report.reaped).toEqual({ 'no session': 1 });
  });

  it('judges a task tagged claimed by its session like any session task, and forgets its entry', async () => {
    const { run, model, warm, idleEntry, sessions } = setup(gridConfig({ min: 0, max: 3 }));
    const task = model.add(warmTags(T0 - 10 * MINUTE, 'claimed', 's1'), 'RUNNING', '127.0.0.1');
    await warm.register(idleEntry(task, T0 - 20 * MINUTE));
    await warm.claim('fargate', { key: 's1', at: T0 - 10 * MINUTE });
    await sessions.acquire('s1', { pool: 'fargate', poolLimit: 5, user: 'u' });
    await sessions.add(
      sampleRecord('s1', { pool: 'fargate', handle: idOf(task), createdAt: T0 - 9 * MINUTE }),
    );

    const report = await run();

    expect(stopInputs()).toEqual([]);
    expect(report.total).toBe(0);
    expect(warm.tasks.size).toBe(0);
  });
});
