/**
 * An in-process stand-in for the ECS API: a node:http server on 127.0.0.1 speaking the real wire protocol
 * (awsJson1_1: POST / with X-Amz-Target AmazonEC2ContainerServiceV20141113.<Action>, JSON both ways), so a
 * real ECSClient talks to it. Each RunTask starts a real chromedriver as the task's browser container (or
 * a Selenium server, or a docker-selenium node's display, VNC and noVNC around it) and gives the task its
 * own loopback IP (127.0.0.2, .3, …) on the container port, forwarded to chromedriver's own port; StopTask
 * kills it; TagResource adds tags. Spot can be short of capacity, of the account's vCPU quota, or stall. A task definition with a `video` container (docker-selenium's recorder) runs
 * its browser headful on an X display and the recorder's stand-in beside it (fake-video-recorder.ts), and
 * StopTask stops its containers in the reverse order of their dependsOn. Tasks go PROVISIONING → PENDING → RUNNING over
 * successive DescribeTasks. Every call is first checked against what ECS refuses (ecs-api-rules.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ECSClient } from '@aws-sdk/client-ecs';
import {
  EcsRefusal,
  refuseDescribeTasks,
  refuseListTasks,
  refuseRunTask,
  refuseStopTask,
  refuseTagResource,
} from './ecs-api-rules';
import { refuseFargateTaskDefinition } from './ecs-task-definition-rules';
import type { FakeCloudWatchLogs } from './fake-cloudwatch-logs';
import { FakeVideoRecorder } from './fake-video-recorder';
import { LoopbackChromedrivers, type LoopbackContainers } from './loopback-chromedrivers';
import { LoopbackDisplayedSeleniumServers } from './loopback-displayed-selenium-servers';
import { LoopbackSeleniumServers } from './loopback-selenium-servers';
import { LoopbackVncBrowsers, type VncSettings } from './loopback-vnc-browsers';

const TARGET_PREFIX = 'AmazonEC2ContainerServiceV20141113.';
const JSON_11 = 'application/x-amz-json-1.1';
const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
export const NO_CAPACITY =
  'Capacity is unavailable at this time. Please try again later or in a different availability zone';
/**
 * RunTask's failure when the account's Fargate vCPU quota for the capacity provider is used up (AWS Fargate
 * service quotas: "Fargate Spot vCPU resource count", "Fargate On-Demand vCPU resource count", each its own).
 */
export const VCPU_LIMIT = "You've reached the limit on the number of vCPUs you can run concurrently";

export interface FakeEcsOptions {
  /** The browser container's WebDriver port: the ecs pool's `port`. */
  containerPort: number;
  /** The one container of the fake task definition. */
  containerName?: string;
  chromedriver?: string;
  /**
   * What each task's browser container runs: chromedriver (the default, quick to start), or the Selenium
   * server standalone a docker-selenium image runs, which also serves /se/file and /se/files.
   */
  browser?: 'chromedriver' | 'selenium-server';
  /**
   * A VNC view in every task, as docker-selenium's node images serve it (the browser, chromedriver's,
   * headful on an X display that x11vnc shares behind the password, noVNC served by websockify on the
   * port: loopback-vnc-browsers.ts); the pool's settings then name this port and password.
   */
  vnc?: VncSettings;
  /**
   * Where each task's browser container logs, as the awslogs driver sends it: every line it prints, one event
   * each, to the stream `{streamPrefix}/{container name}/{task ID}` of `group`.
   */
  awslogs?: { logs: FakeCloudWatchLogs; group: string; streamPrefix: string };
  /**
   * The task definition the tasks run (RegisterTaskDefinition's input, as infra/browser-fleet.ts makes it),
   * refused at start as ECS would refuse to register it (ecs-task-definition-rules.ts). A container named
   * `video` is docker-selenium's recorder: each task then runs the Selenium server headful on an X display
   * and the recorder's stand-in beside it, with that container's environment. Without one: the one browser
   * container.
   */
  taskDefinition?: Json;
  /**
   * What a recorder's S3 remote reaches instead of AWS: the fake S3's endpoint (RCLONE_CONFIG_S3_ENDPOINT) and
   * the task role's keys (the environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, which rclone's
   * env_auth reads).
   */
  recorderS3?: { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /**
   * What runs each task's browser container instead of the loopback processes above: the task definition's
   * own image, with podman (podman-task-containers.ts).
   */
  containers?: LoopbackContainers;
}

// biome-ignore lint/suspicious/noExplicitAny: request and answer bodies are free-form JSON, checked field by field.
type Json = any;

export interface FakeTask {
  id: string;
  arn: string;
  cluster: string;
  ip: string;
  capacityProvider: string;
  input: Json;
  lastStatus: string;
  desiredStatus: 'RUNNING' | 'STOPPED';
  stoppedReason?: string;
  describes: number;
  /** The pid (and process group) of the task's first process: chromedriver's, the Selenium server's or the display's. */
  pid?: number;
  /** Settles when the task's processes have exited (and chromedriver's forwarder is closed). */
  gone: Promise<void>;
  /** The `video` container's stand-in, once its dependency (the browser container) has started. */
  recorder?: Promise<FakeVideoRecorder | undefined>;
}

class EcsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export class FakeEcsApi {
  /** Every call, in order: the action and its JSON input. */
  readonly calls: { action: string; input: Json }[] = [];
  readonly tasks = new Map<string, FakeTask>();
  /** False: RunTask on FARGATE_SPOT answers with a capacity failure, as ECS does when Spot is short. */
  spotCapacity = true;
  /**
   * True: RunTask on FARGATE_SPOT answers the account's Spot vCPU quota failure (VCPU_LIMIT) in `failures`;
   * on-demand Fargate, whose quota is another, still starts tasks.
   */
  spotQuotaReached = false;
  /**
   * True: a FARGATE_SPOT task RunTask accepted stays PROVISIONING at every DescribeTasks, as one does while
   * ECS finds no Spot capacity to place it on (aws/containers-roadmap #880; "Amazon ECS task lifecycle":
   * PROVISIONING is the steps before launch), until it is stopped.
   */
  spotStalls = false;
  private readonly byToken = new Map<string, FakeTask>();
  private nextHost = 2;
  private readonly server: Server;
  private readonly containers: LoopbackContainers;

  private constructor(private readonly options: FakeEcsOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
    this.containers = options.containers
      ? options.containers
      : this.recorderDefinition()
        ? new LoopbackDisplayedSeleniumServers(options.containerPort)
        : options.browser === 'selenium-server'
          ? new LoopbackSeleniumServers(options.containerPort)
          : options.vnc
            ? new LoopbackVncBrowsers(options.containerPort, options.vnc, options.chromedriver)
            : new LoopbackChromedrivers(options.containerPort, options.chromedriver);
  }

  static async start(options: FakeEcsOptions): Promise<FakeEcsApi> {
    if (options.taskDefinition) refuseFargateTaskDefinition(options.taskDefinition);
    const api = new FakeEcsApi(options);
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get containerPort(): number {
    return this.options.containerPort;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A real ECSClient of this API, with static fake credentials. */
  client(): ECSClient {
    return new ECSClient({
      region: REGION,
      endpoint: this.endpoint,
      credentials: { accessKeyId: 'AKIDFAKEECS', secretAccessKey: 'fake-ecs-secret' },
    });
  }

  /**
   * The settings (JSON as a user writes them) of an ecs pool whose tasks this API runs: cluster
   * gridgate-browsers, task definition gridgate-chrome:1 (the API takes any), the container's port (and
   * the tasks' VNC port and password, if they serve one), and the tasks' loopback IPs as the pool's network.
   */
  poolSettings(): Record<string, unknown> {
    return {
      kind: 'ecs',
      cluster: 'gridgate-browsers',
      taskDefinition: 'gridgate-chrome:1',
      subnets: ['subnet-a', 'subnet-b'],
      securityGroups: ['sg-browsers'],
      networks: ['127.0.0.0/8'],
      port: this.options.containerPort,
      ...(this.options.vnc ? { vncPort: this.options.vnc.port, vncPassword: this.options.vnc.password } : {}),
    };
  }

  callsOf(action: string): Json[] {
    return this.calls.filter((call) => call.action === action).map((call) => call.input);
  }

  /** Stops every task (killing its chromedriver and Chromium) and closes the API. */
  async close(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((task) => this.stopTask(task, 'fake ECS closed')));
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    const reply = (status: number, body: Json, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': JSON_11, ...headers }).end(JSON.stringify(body));
    try {
      if (req.method !== 'POST' || req.url !== '/' || !target.startsWith(TARGET_PREFIX)) {
        throw new EcsError(
          'UnknownOperationException',
          `unknown operation ${req.method} ${req.url} ${target}`,
        );
      }
      const action = target.slice(TARGET_PREFIX.length);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      this.calls.push({ action, input });
      reply(200, await this.answer(action, input));
    } catch (error) {
      const refused = error instanceof EcsError || error instanceof EcsRefusal;
      const type = refused ? error.type : 'ServerException';
      // The awsJson1_1 error shape: the type in __type and x-amzn-ErrorType, a message beside it.
      reply(
        refused ? 400 : 500,
        { __type: type, message: (error as Error).message },
        {
          'x-amzn-errortype': type,
        },
      );
    }
  }

  private answer(action: string, input: Json): Json {
    switch (action) {
      case 'RunTask':
        return this.runTask(input);
      case 'DescribeTasks':
        return this.describeTasks(input);
      case 'StopTask':
        return this.stopTaskCall(input);
      case 'ListTasks':
        return this.listTasks(input);
      case 'TagResource':
        return this.tagResource(input);
      default:
        throw new EcsError('UnknownOperationException', `the fake does not implement ${action}`);
    }
  }

  private runTask(input: Json): Json {
    refuseRunTask(
      input,
      (this.containerDefinitions() ?? [{ name: this.browserName() }]).map(
        (container: Json) => container.name,
      ),
    );
    const known = input.clientToken !== undefined ? this.byToken.get(input.clientToken) : undefined;
    if (known) return { tasks: [this.view(known)], failures: [] };
    const provider = input.capacityProviderStrategy?.[0]?.capacityProvider ?? 'FARGATE';
    if (provider === 'FARGATE_SPOT' && !this.spotCapacity)
      return { tasks: [], failures: [{ reason: NO_CAPACITY }] };
    if (provider === 'FARGATE_SPOT' && this.spotQuotaReached)
      return { tasks: [], failures: [{ reason: VCPU_LIMIT }] };
    const cluster = input.cluster ?? 'default';
    const id = randomBytes(16).toString('hex');
    const ip = `127.0.0.${this.nextHost++}`;
    // The browser container: chromedriver on a port of its own, reached through the task's IP and port.
    const container = this.containers.start(
      id,
      ip,
      {
        onExit: (why) => containerExited(task, why),
        onLine: (line) => this.logLine(id, line),
      },
      overriddenEnvironment(input, this.browserName()),
    );
    const task: FakeTask = {
      id,
      arn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/${cluster}/${id}`,
      cluster,
      ip,
      pid: container.pid,
      gone: container.gone,
      capacityProvider: provider,
      input,
      lastStatus: 'PROVISIONING',
      desiredStatus: 'RUNNING',
      describes: 0,
    };
    task.recorder = this.startRecorder(task);
    this.tasks.set(id, task);
    if (input.clientToken !== undefined) this.byToken.set(input.clientToken, task);
    return { tasks: [this.view(task)], failures: [] };
  }

  private logLine(taskId: string, line: string, container = this.browserName()): void {
    const awslogs = this.options.awslogs;
    if (!awslogs) return;
    const stream = `${awslogs.streamPrefix}/${container}/${taskId}`;
    awslogs.logs.log(awslogs.group, stream, [line]);
  }

  private browserName(): string {
    return this.options.containerName ?? 'browser';
  }

  private containerDefinitions(): Json[] | undefined {
    return this.options.taskDefinition?.containerDefinitions;
  }

  private recorderDefinition(): Json | undefined {
    return this.containerDefinitions()?.find((container) => container.name === 'video');
  }

  /**
   * The recorder starts once the browser container has (its dependsOn condition START), on the browser's
   * display, with its definition's environment and what stands in for AWS here (the fake S3, the task role's
   * keys, the display's number).
   */
  private startRecorder(task: FakeTask): Promise<FakeVideoRecorder | undefined> | undefined {
    const definition = this.recorderDefinition();
    const s3 = this.options.recorderS3;
    if (!definition || !(this.containers instanceof LoopbackDisplayedSeleniumServers)) return undefined;
    if (!s3) throw new Error('a task definition with a video container needs recorderS3');
    const environment: Record<string, string> = {
      ...Object.fromEntries(
        (definition.environment ?? []).map((variable: Json) => [variable.name, variable.value]),
      ),
      ...overriddenEnvironment(task.input, definition.name),
    };
    return this.containers.display(task.id).then(
      (display) => {
        if (task.desiredStatus === 'STOPPED') return undefined;
        const recorder = new FakeVideoRecorder({
          ip: task.ip,
          environment: {
            ...environment,
            DISPLAY_NUM: display.slice(1),
            RCLONE_CONFIG_S3_ENDPOINT: s3.endpoint,
            AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
          },
          onLine: (line) => this.logLine(task.id, line, 'video'),
        });
        recorder.start();
        return recorder;
      },
      () => undefined,
    );
  }

  private describeTasks(input: Json): Json {
    refuseDescribeTasks(input);
    const tasks: Json[] = [];
    const failures: Json[] = [];
    for (const ref of input.tasks ?? []) {
      const task = this.find(ref);
      if (!task) {
        failures.push({ arn: ref, reason: 'MISSING' });
        continue;
      }
      task.describes++;
      // PROVISIONING, then PENDING (ENI attached, container starting), then RUNNING once it listens; a
      // stalled Spot task never leaves PROVISIONING.
      const stalled = this.spotStalls && task.capacityProvider === 'FARGATE_SPOT';
      if (task.lastStatus === 'PROVISIONING' && !stalled) task.lastStatus = 'PENDING';
      else if (task.lastStatus === 'PENDING' && this.containers.listening(task.id))
        task.lastStatus = 'RUNNING';
      tasks.push(this.view(task));
    }
    return { tasks, failures };
  }

  private async stopTaskCall(input: Json): Promise<Json> {
    refuseStopTask(input);
    const task = this.find(input.task);
    if (!task || (input.cluster ?? 'default') !== task.cluster) {
      throw new EcsError('InvalidParameterException', 'The referenced task was not found.');
    }
    await this.stopTask(task, input.reason ?? 'Task stopped by user');
    return { task: this.view(task) };
  }

  /**
   * By startedBy (which must stand alone), every task started so, stopped ones too: API_ListTasks says
   * "Recently stopped tasks might appear in the returned results", so the caller filters on what
   * DescribeTasks says. Otherwise by desiredStatus, RUNNING by default.
   */
  private listTasks(input: Json): Json {
    refuseListTasks(input);
    const desired = input.desiredStatus ?? 'RUNNING';
    const arns = [...this.tasks.values()]
      .filter((t) => t.cluster === (input.cluster ?? 'default'))
      .filter((t) =>
        input.startedBy === undefined ? t.desiredStatus === desired : t.input.startedBy === input.startedBy,
      )
      .map((t) => t.arn);
    return { taskArns: arns };
  }

  /** Adds tags, replacing the values of keys the task has already (as ECS does); only by full ARN. */
  private tagResource(input: Json): Json {
    refuseTagResource(input);
    const task = [...this.tasks.values()].find((t) => t.arn === input.resourceArn);
    if (!task) throw new EcsError('InvalidParameterException', 'The specified resource is not found.');
    const tags = new Map<string, string>((task.input.tags ?? []).map((t: Json) => [t.key, t.value]));
    for (const tag of input.tags ?? []) tags.set(tag.key, tag.value);
    task.input.tags = [...tags].map(([key, value]) => ({ key, value }));
    return {};
  }

  private find(ref: string): FakeTask | undefined {
    return this.tasks.get(String(ref).slice(String(ref).lastIndexOf('/') + 1));
  }

  private async stopTask(task: FakeTask, reason: string): Promise<void> {
    if (task.desiredStatus === 'RUNNING') {
      task.desiredStatus = 'STOPPED';
      task.stoppedReason = reason;
      task.lastStatus = 'STOPPING';
    }
    for (const container of stopOrder(this.containerDefinitions(), this.browserName())) {
      if (container.name === 'video') {
        const recorder = await task.recorder;
        // API_ContainerDefinition, stopTimeout: without one, ECS_CONTAINER_STOP_TIMEOUT's 30 seconds.
        await recorder?.stop((container.stopTimeout ?? 30) * 1000);
      } else if (task.lastStatus !== 'STOPPED') {
        // Chromium may outlive its chromedriver: the whole group goes, and StopTask answers once it has.
        await this.containers.stop(task.id);
      }
    }
  }

  /** A task as DescribeTasks shows it (epoch seconds for times, as the JSON protocol sends them). */
  private view(task: FakeTask): Json {
    const attached = task.lastStatus !== 'PROVISIONING';
    const details = [
      { name: 'subnetId', value: task.input.networkConfiguration.awsvpcConfiguration.subnets[0] },
    ];
    if (attached) {
      details.push(
        { name: 'networkInterfaceId', value: `eni-${task.id.slice(0, 17)}` },
        { name: 'privateIPv4Address', value: task.ip },
      );
    }
    return {
      taskArn: task.arn,
      clusterArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${task.cluster}`,
      taskDefinitionArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${task.input.taskDefinition}`,
      capacityProviderName: task.capacityProvider,
      launchType: 'FARGATE',
      lastStatus: task.lastStatus,
      desiredStatus: task.desiredStatus,
      startedBy: task.input.startedBy,
      group: `family:${String(task.input.taskDefinition).split(':')[0]}`,
      tags: task.input.tags ?? [],
      overrides: task.input.overrides ?? {},
      attachments: [
        {
          id: task.id.slice(0, 8),
          type: 'ElasticNetworkInterface',
          status: attached ? 'ATTACHED' : 'PRECREATED',
          details,
        },
      ],
      containers: (this.containerDefinitions() ?? [{ name: this.browserName() }]).map((container: Json) => ({
        name: container.name,
        lastStatus: task.lastStatus,
      })),
      createdAt: Date.now() / 1000,
      ...(task.desiredStatus === 'STOPPED'
        ? { stoppedReason: task.stoppedReason, stopCode: 'UserInitiated' }
        : {}),
    };
  }
}

/** The container ended on its own (or was stopped): the task stops, as ECS stops a task whose essential container exits. */
function containerExited(task: FakeTask, why: string): void {
  if (task.desiredStatus === 'RUNNING') {
    task.desiredStatus = 'STOPPED';
    task.stoppedReason = `Essential container in task exited (${why})`;
  }
  task.lastStatus = 'STOPPED';
}

/**
 * The order a stopping task's containers are stopped in: "When a dependency is defined for container startup,
 * for container shutdown it is reversed" (Amazon ECS API Reference, ContainerDependency), so a container goes
 * only once every container that depends on it has gone. Without definitions: the one browser container.
 */
export function stopOrder(definitions: Json[] | undefined, browser: string): Json[] {
  const left: Json[] = [...(definitions ?? [{ name: browser }])];
  const order: Json[] = [];
  while (left.length > 0) {
    const next = left.find(
      (container) =>
        !left.some((other) =>
          (other.dependsOn ?? []).some((dependency: Json) => dependency.containerName === container.name),
        ),
    );
    // A cycle leaves none free to go first: the rest go in the order listed.
    const chosen = next ?? left[0];
    order.push(chosen);
    left.splice(left.indexOf(chosen), 1);
  }
  return order;
}

/**
 * What RunTask's container override for `container` adds to its definition's environment, or replaces there
 * (API_ContainerOverride, environment: "You can add new environment variables, which are added to the
 * container at launch, or you can override the existing environment variables").
 */
function overriddenEnvironment(input: Json, container: string): Record<string, string> {
  const override = (input.overrides?.containerOverrides ?? []).find((one: Json) => one.name === container);
  return Object.fromEntries(
    (override?.environment ?? []).map((variable: Json) => [variable.name, variable.value]),
  );
}
