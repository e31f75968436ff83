/**
 * ECS's task calls (ListTasks, DescribeTasks, StopTask) on aws-sdk-client-mock, answering from a model of
 * tasks that behaves as ECS documents: every input checked against what ECS refuses (ecs-api-rules.ts),
 * pages of at most 100 with an opaque nextToken, startedBy listing stopped tasks too, tags only with
 * include TAGS, MISSING failures for the unknown, StopTask that marks a task STOPPED and refuses one it
 * does not know. Nothing leaves the process.
 */
import {
  DescribeTasksCommand,
  type DescribeTasksCommandInput,
  ECSClient,
  type ECSClientResolvedConfig,
  ECSServiceException,
  ListTasksCommand,
  type ListTasksCommandInput,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  StopTaskCommand,
  type StopTaskCommandInput,
  type Tag,
  type Task,
} from '@aws-sdk/client-ecs';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { TASK_TAGS } from '../../functions/pools/ecs/task-tags';
import { refuseDescribeTasks, refusedAsSdk, refuseListTasks, refuseStopTask } from './ecs-api-rules';

const ACCOUNT = '111122223333';
const REGION = 'us-east-1';

export interface ModelTask {
  id: string;
  arn: string;
  cluster: string;
  startedBy: string | undefined;
  desiredStatus: 'RUNNING' | 'STOPPED';
  lastStatus: string;
  stopCode?: string;
  stoppedReason?: string;
  createdAt: Date;
  tags: Tag[];
}

export interface NewTask {
  cluster: string;
  /** Epoch ms; ECS's own createdAt. */
  createdAt: number;
  startedBy?: string;
  tags?: Tag[];
  desiredStatus?: 'RUNNING' | 'STOPPED';
  lastStatus?: string;
  stopCode?: string;
}

type Action = 'ListTasks' | 'DescribeTasks' | 'StopTask';

/** An ECS API error as the SDK raises it (name from the error type, HTTP 400). */
export function ecsError(name: string, message: string): ECSServiceException {
  return new ECSServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
}

/** The tags gridgate's launcher puts on a task (task-tags.ts). */
export function gridgateTags(session: string, pool: string, createdAt: number, user = 'guest'): Tag[] {
  return [
    { key: TASK_TAGS.grid, value: 'true' },
    { key: TASK_TAGS.session, value: session },
    { key: TASK_TAGS.user, value: user },
    { key: TASK_TAGS.pool, value: pool },
    { key: TASK_TAGS.createdAt, value: String(createdAt) },
  ];
}

export class EcsTasksMock {
  readonly mock: AwsStub<ServiceInputTypes, ServiceOutputTypes, ECSClientResolvedConfig>;
  readonly tasks = new Map<string, ModelTask>();
  /** StopTask calls and whatever the test adds (e.g. sleeps), in order. */
  readonly timeline: string[] = [];
  /** Task IDs ListTasks does not show yet (a task started just after the listing began). */
  readonly notListedYet = new Set<string>();
  /** Task IDs that are gone by the time StopTask names them (stopped and aged out meanwhile). */
  readonly goneBeforeStop = new Set<string>();
  private readonly failures = new Map<string, Error>();
  // Copies taken as each call arrives: the SDK's paginators reuse one input object for every page.
  private readonly sent: { command: unknown; input: unknown }[] = [];
  private stopsBeforeThrottle = Number.POSITIVE_INFINITY;
  private count = 0;

  constructor() {
    this.mock = mockClient(ECSClient);
    this.mock.on(ListTasksCommand).callsFake((input: ListTasksCommandInput) => {
      this.sent.push({ command: ListTasksCommand, input: structuredClone(input) });
      return refusedAsSdk(() => refuseListTasks(input)) ?? this.listTasks(input);
    });
    this.mock.on(DescribeTasksCommand).callsFake((input: DescribeTasksCommandInput) => {
      this.sent.push({ command: DescribeTasksCommand, input: structuredClone(input) });
      return refusedAsSdk(() => refuseDescribeTasks(input)) ?? this.describe(input);
    });
    this.mock.on(StopTaskCommand).callsFake((input: StopTaskCommandInput) => {
      this.sent.push({ command: StopTaskCommand, input: structuredClone(input) });
      return refusedAsSdk(() => refuseStopTask(input)) ?? this.stop(input);
    });
  }

  /** A client that would sign with fake credentials, though the mock answers before anything is sent. */
  client(): ECSClient {
    return new ECSClient({
      region: REGION,
      credentials: { accessKeyId: 'AKIAFAKEFAKEFAKEFAKE', secretAccessKey: 'fake-secret' },
    });
  }

  add(spec: NewTask): ModelTask {
    const id = (++this.count).toString(16).padStart(32, '0');
    const task: ModelTask = {
      id,
      arn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${spec.cluster}/${id}`,
      cluster: spec.cluster,
      startedBy: spec.startedBy,
      desiredStatus: spec.desiredStatus ?? 'RUNNING',
      lastStatus: spec.lastStatus ?? (spec.desiredStatus === 'STOPPED' ? 'STOPPED' : 'RUNNING'),
      stopCode: spec.stopCode,
      createdAt: new Date(spec.createdAt),
      tags: spec.tags ?? [],
    };
    this.tasks.set(id, task);
    return task;
  }

  /** Every call of this action on this cluster rejects with `error`. */
  fail(action: Action, cluster: string, error: Error): void {
    this.failures.set(`${action} ${cluster}`, error);
  }

  /** StopTask succeeds `n` more times, then is throttled. */
  throttleStopsAfter(n: number): void {
    this.stopsBeforeThrottle = n;
  }

  /** The inputs the code sent with this command, in order, as they were when sent. */
  inputs<Command extends abstract new (...args: never[]) => { input: object }>(
    command: Command,
  ): InstanceType<Command>['input'][] {
    return this.sent.filter((call) => call.command === command).map((call) => call.input as object);
  }

  restore(): void {
    this.mock.restore();
  }

  private failure(action: Action, cluster: string | undefined): void {
    const error = this.failures.get(`${action} ${cluster ?? 'default'}`);
    if (error) throw error;
  }

  /** By startedBy (alone, ecs-api-rules.ts): stopped tasks too, as "recently stopped tasks might appear". */
  private listTasks(input: ListTasksCommandInput) {
    this.failure('ListTasks', input.cluster);
    const pageSize = input.maxResults ?? 100;
    const desired = input.desiredStatus ?? 'RUNNING';
    const arns = [...this.tasks.values()]
      .filter((task) => task.cluster === (input.cluster ?? 'default'))
      .filter((task) =>
        input.startedBy !== undefined ? task.startedBy === input.startedBy : task.desiredStatus === desired,
      )
      .filter((task) => !this.notListedYet.has(task.id))
      .map((task) => task.arn);
    const offset = input.nextToken === undefined ? 0 : Number(Buffer.from(input.nextToken, 'base64url'));
    const end = offset + pageSize;
    return {
      taskArns: arns.slice(offset, end),
      nextToken: end < arns.length ? Buffer.from(String(end)).toString('base64url') : undefined,
      $metadata: {},
    };
  }

  private describe(input: DescribeTasksCommandInput) {
    this.failure('DescribeTasks', input.cluster);
    const refs = input.tasks ?? [];
    const tasks: Task[] = [];
    const failures: { arn: string; reason: string }[] = [];
    for (const ref of refs) {
      const task = this.find(input.cluster, ref);
      if (!task) {
        failures.push({ arn: ref, reason: 'MISSING' });
        continue;
      }
      tasks.push(this.view(task, input.include?.includes('TAGS') ?? false));
    }
    return { tasks, failures, $metadata: {} };
  }

  private stop(input: StopTaskCommandInput) {
    this.failure('StopTask', input.cluster);
    if (this.stopsBeforeThrottle <= 0) throw ecsError('ThrottlingException', 'Rate exceeded');
    this.stopsBeforeThrottle--;
    for (const id of this.goneBeforeStop) this.tasks.delete(id);
    const task = input.task === undefined ? undefined : this.find(input.cluster, input.task);
    if (!task) throw ecsError('InvalidParameterException', 'The referenced task was not found.');
    this.timeline.push(`stop ${task.id}`);
    if (task.desiredStatus === 'RUNNING') {
      task.desiredStatus = 'STOPPED';
      task.lastStatus = 'STOPPING';
      task.stopCode = 'UserInitiated';
      task.stoppedReason = input.reason ?? 'Task stopped by user';
    }
    return { task: this.view(task, false), $metadata: {} };
  }

  private find(cluster: string | undefined, ref: string): ModelTask | undefined {
    const task = this.tasks.get(ref.slice(ref.lastIndexOf('/') + 1));
    return task && task.cluster === (cluster ?? 'default') ? task : undefined;
  }

  private view(task: ModelTask, withTags: boolean): Task {
    return {
      taskArn: task.arn,
      clusterArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${task.cluster}`,
      startedBy: task.startedBy,
      desiredStatus: task.desiredStatus,
      lastStatus: task.lastStatus,
      createdAt: task.createdAt,
      launchType: 'FARGATE',
      ...(task.stopCode
        ? { stopCode: task.stopCode as Task['stopCode'], stoppedReason: task.stoppedReason }
        : {}),
      ...(withTags ? { tags: task.tags } : {}),
    };
  }
}
