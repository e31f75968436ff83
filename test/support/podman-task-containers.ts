/**
 * A fake orchestrator's task containers run for real with podman: each task's browser container is the task
 * definition's own (its image, command and environment, as ECS would start it), in a network namespace of its
 * own (slirp4netns: no bridge, no way to this machine's loopback), its container port published on the task's
 * loopback IP. What ECS does with it is copied: the task is RUNNING once the container has started (its first
 * line of output), StopTask is SIGTERM then SIGKILL after the definition's stopTimeout ("Amazon ECS task
 * definition parameters", stopTimeout), and a container that exits ends the task. No init is added: ECS adds
 * none unless the definition asks (linuxParameters.initProcessEnabled).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { PODMAN_ENV, TEST_LABEL } from '../../scripts/test-images';
import type { ContainerHooks, LoopbackContainers } from './loopback-chromedrivers';

// biome-ignore lint/suspicious/noExplicitAny: definitions are free-form JSON, read field by field.
type Json = any;

/** Every container of one PodmanTaskContainers carries this label with its own value. */
export const FAKE_TASK_LABEL = 'io.gridgate.fake-ecs-task';
/** ECS_CONTAINER_STOP_TIMEOUT's default, when the definition sets no stopTimeout. */
const DEFAULT_STOP_SECONDS = 30;

interface TaskContainer {
  name: string;
  child: ChildProcess;
  started: boolean;
  gone: Promise<void>;
}

export class PodmanTaskContainers implements LoopbackContainers {
  /** The label value of this instance's containers: what a test looks them up by. */
  readonly run = randomBytes(4).toString('hex');
  private readonly containers = new Map<string, TaskContainer>();

  /**
   * @param definition the browser container's definition (RegisterTaskDefinition's shape)
   * @param image the local image that stands for the definition's image (built from the same Dockerfile)
   */
  constructor(
    private readonly definition: Json,
    private readonly image: string,
  ) {}

  start(
    name: string,
    ip: string,
    { onExit = () => {}, onLine = () => {} }: ContainerHooks = {},
    overrides: Record<string, string> = {},
  ) {
    const containerName = `gridgate-fake-task-${name}`;
    // The override's variables are added to the definition's, or replace them (API_ContainerOverride).
    const environment: Record<string, string> = {
      ...Object.fromEntries(
        (this.definition.environment ?? []).map((variable: Json) => [variable.name, variable.value]),
      ),
      ...overrides,
    };
    const publish = (this.definition.portMappings ?? []).map(
      (mapping: Json) => `--publish=${ip}:${mapping.containerPort}:${mapping.containerPort}`,
    );
    const child = spawn(
      'podman',
      [
        'run',
        '--rm',
        `--name=${containerName}`,
        `--label=${TEST_LABEL}`,
        `--label=${FAKE_TASK_LABEL}=${this.run}`,
        '--network=slirp4netns:allow_host_loopback=false',
        ...publish,
        ...Object.entries(environment).map(([variable, value]) => `--env=${variable}=${value}`),
        this.image,
        ...(this.definition.command ?? []),
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: PODMAN_ENV },
    );
    let settle = () => {};
    const container: TaskContainer = {
      name: containerName,
      child,
      started: false,
      gone: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => {
        container.started = true;
        onLine(line);
      });
    }
    const exited = (why: string) => {
      onExit(why);
      settle();
    };
    child.once('exit', (code) => exited(`code ${code}`));
    child.once('error', (error) => exited(error.message));
    this.containers.set(name, container);
    return { pid: child.pid, gone: container.gone };
  }

  listening(name: string): boolean {
    return this.containers.get(name)?.started === true;
  }

  /** As ECS stops a task's container: SIGTERM, then SIGKILL once its stopTimeout has passed. */
  async stop(name: string): Promise<void> {
    const container = this.containers.get(name);
    if (!container) return;
    const seconds = this.definition.stopTimeout ?? DEFAULT_STOP_SECONDS;
    await promisify(execFile)('podman', ['stop', `--time=${seconds}`, '--ignore', container.name], {
      env: PODMAN_ENV,
    }).catch(() => undefined);
    await container.gone;
  }
}

/** The IDs of the containers `containers` started that still exist, running or not. */
export async function leftoverTaskContainers(containers: PodmanTaskContainers): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    'podman',
    ['ps', '--all', '--quiet', '--filter', `label=${FAKE_TASK_LABEL}=${containers.run}`],
    { env: PODMAN_ENV },
  );
  return stdout.split('\n').filter(Boolean);
}
