/**
 * The `run` arguments of a session's container: its labels (what the start-up sweep finds it by), its own
 * network namespace with only its WebDriver (and noVNC) port published on this machine's loopback, the
 * pool's resource limits, the session's time zone and screen, docker-selenium's one-session knobs, and a hard
 * lifetime the engine enforces.
 */

import type { ContainerPoolConfig } from '../../core/config';
import type { EngineName } from './container-engine';

/** The labels every container gridgate starts carries. */
export const CONTAINER_LABELS = {
  /** Which gridgate process started it (owner-mark.ts): the sweep removes those of processes gone. */
  owner: 'io.gridgate.owner',
  pool: 'io.gridgate.pool',
  /** The session's key; "warm" for a container started ahead of demand. */
  session: 'io.gridgate.session',
} as const;

export const WARM_SESSION = 'warm';

export interface ContainerRun {
  pool: ContainerPoolConfig;
  engine: EngineName;
  /** The process mark of the gridgate that starts it. */
  owner: string;
  /** The session's key, or WARM_SESSION. */
  session: string;
  /** The node's own idle timeout in seconds (SE_NODE_SESSION_TIMEOUT), a backstop to gridgate's. */
  idleTimeoutSeconds: number;
  /** Whole seconds after which the engine kills the container whatever happens (podman only). */
  lifetimeSeconds: number;
  /** The session's own environment (its time zone and screen), over the pool's `env`; none for a warm one. */
  environment?: Record<string, string>;
}

/**
 * podman gives each container a user-mode network (slirp4netns) in a namespace of its own: the container
 * reaches the internet as any program on this machine does, but not this machine's loopback (gridgate, other
 * sessions' published ports, any local service), since allow_host_loopback is off unless the pool says
 * so (`hostLoopback`, for a dev server on this machine). Docker's default bridge
 * namespaces each container too; its containers reach one another unless the daemon runs with icc off
 * (docs/container-pools.md).
 */
function networkArgs(engine: EngineName, hostLoopback: boolean): string[] {
  return engine === 'podman' ? [`--network=slirp4netns:allow_host_loopback=${hostLoopback}`] : [];
}

/**
 * Where the containers' ports are published. slirp4netns takes a page's 10.0.2.2 to 127.0.0.1 alone, so a pool
 * whose pages may reach the machine's loopback has its ports on another loopback address, which no page reaches.
 */
export function publishHost(pool: Pick<ContainerPoolConfig, 'hostLoopback'>): string {
  return pool.hostLoopback ? '127.0.0.2' : '127.0.0.1';
}

export function containerRunArgs(run: ContainerRun): string[] {
  const { pool } = run;
  const publish = [pool.port, ...(pool.vncPort ? [pool.vncPort] : [])].map(
    // An ephemeral port on loopback only: what the session ID carries, reachable from this machine alone.
    (port) => `--publish=${publishHost(pool)}::${port}`,
  );
  const environment = {
    ...pool.env,
    ...run.environment,
    // docker-selenium's node: one session, then drain; any other image ignores these.
    SE_NODE_MAX_SESSIONS: '1',
    SE_DRAIN_AFTER_SESSION_COUNT: '1',
    SE_NODE_SESSION_TIMEOUT: String(Math.max(1, run.idleTimeoutSeconds)),
  };
  return [
    '--rm',
    // A driver as PID 1 ignores SIGTERM: an init passes it on and reaps the browser's children.
    '--init',
    `--label=${CONTAINER_LABELS.owner}=${run.owner}`,
    `--label=${CONTAINER_LABELS.pool}=${pool.name}`,
    `--label=${CONTAINER_LABELS.session}=${run.session}`,
    ...networkArgs(run.engine, pool.hostLoopback),
    ...publish,
    `--shm-size=${pool.shmSize}`,
    ...(pool.cpus !== undefined ? [`--cpus=${pool.cpus}`] : []),
    ...(pool.memory !== undefined ? [`--memory=${pool.memory}`] : []),
    // The last backstop of "nothing leaks": the engine ends the container even with no gridgate left.
    ...(run.engine === 'podman' ? [`--timeout=${run.lifetimeSeconds}`] : []),
    ...Object.entries(environment).map(([name, value]) => `--env=${name}=${value}`),
    pool.image,
  ];
}
