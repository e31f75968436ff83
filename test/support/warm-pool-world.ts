/**
 * What the cleanup's warm pool tests share (ecs-warm-pool.ts through the cleanup as its Lambda runs it): a mocked ECS API
 * whose tasks the test sets, each call checked against what ECS takes, an in-memory warm store, a real
 * /status endpoint on 127.0.0.1 standing in for a warm task's browser node, and a fixed clock the test
 * moves.
 */
import {
  DescribeTasksCommand,
  type DescribeTasksCommandInput,
  ECSClient,
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
import { beforeEach } from 'vitest';
import { MemorySessionStore } from '../../functions/adapters/memory/memory-session-store';
import type { SessionStart } from '../../functions/core/warm-demand';
import type { WarmTask } from '../../functions/core/warm-task-store';
import { makeEcsCleanup } from '../../functions/pools/ecs/ecs-cleanup';
import type { CleanupContext } from '../../functions/pools/pool-kind';
import { useBrowserNodeStatus } from './browser-node-status';
import { cleanupRuns, NO_AWS_IDENTITY } from './cleanup-runs';
import {
  refuseDescribeTasks,
  refusedAsSdk,
  refuseListTasks,
  refuseRunTask,
  refuseStopTask,
} from './ecs-api-rules';
import { CollectingLogger, FixedClock, RecordingMetrics } from './fakes';
import { MemoryWarmTasks } from './memory-warm-tasks';
import { configWithOnePool } from './one-pool-config';

export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const CLUSTER = 'browsers';

/** A warm task's browser node, always ready. */
export const node = useBrowserNodeStatus();

/** null: the pool has no warm setting. */
export function gridConfig(warm: unknown = { min: 1, max: 3, idleTtl: '10m' }) {
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

export const idOf = (task: Task) => String(task.taskArn).slice(-32);

export function warmTags(launchedAt: number, state = 'unclaimed', session?: string): Tag[] {
  return [
    { key: 'gridgate', value: 'true' },
    { key: 'gridgate:pool', value: 'fargate' },
    { key: 'gridgate:created-at', value: String(launchedAt) },
    { key: 'gridgate:warm', value: state },
    ...(session ? [{ key: 'gridgate:session', value: session }] : []),
  ];
}

export const ecsMock = mockClient(ECSClient);

export function setup(config = gridConfig()) {
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
    const refused = refusedAsSdk(() => refuseRunTask(input, ['browser']));
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
  const ecs = new ECSClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
  });
  const deps = {
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
    aws: NO_AWS_IDENTITY,
    makers: { ecs: (context: CleanupContext) => makeEcsCleanup(context, ecs) },
  };
  const run = cleanupRuns(deps);
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

export const runTaskInputs = () => ecsMock.commandCalls(RunTaskCommand).map((call) => call.args[0].input);
export const stopInputs = () => ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input);

beforeEach(() => ecsMock.reset());
