/**
 * Launcher for container pools: a container of the pool's image per session (or one of the pool's warm
 * containers), its WebDriver port published on loopback and awaited as an ecs task's node is, its ID the
 * session's handle. Every container is watched until it is removed: one that exits on its own ends its
 * session ("browser exited"); every end of a session removes it; a gridgate killed outright leaves containers
 * the next start sweeps (container-sweep.ts), and the engine ends any container past its hard lifetime.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { realSleep } from '../../adapters/aws/retry-pacing';
import { browserInUseMs, hardLifetimeSeconds } from '../../core/browser-lifetime';
import type { Capabilities } from '../../core/capabilities';
import type { ContainerPoolConfig } from '../../core/config';
import { devtoolsAddress, withDevtoolsAt } from '../../core/devtools-address';
import { LaunchFailure } from '../../core/host-choice';
import type { DevtoolsDoors, SessionOpener, VncOrigins, WarmCounter } from '../../core/pool-runtime';
import type {
  LaunchedBrowser,
  Launcher,
  LaunchRequest,
  Logger,
  SessionEndReason,
  StopContext,
} from '../../core/ports';
import { systemClock } from '../../core/ports';
import { screenAndZoneEnvironment, withScreenWindow } from '../../core/screen-and-zone';
import type { SessionRecorder } from '../../core/session-recorder';
import { DriverNotReady, driverStatus, waitForDriver } from '../selenium-node/driver-ready';
import { nodeCapabilities } from '../selenium-node/node-capabilities';
import type { ContainerEngine, ContainerExit } from './container-engine';
import { containerRunArgs, publishHost, WARM_SESSION } from './container-run-args';
import { type DevtoolsDoor, devtoolsPortOf, doorsUnavailable, openDevtoolsDoor } from './devtools-door';
import { ownMark } from './owner-mark';

/** docker-selenium's node is ready ~7 s after its start; a slow machine unpacking an image takes longer. */
const READY_TIMEOUT_MS = 60_000;
/** A warm container is replaced after this long idle, so one taken never has less than its full lifetime. */
const WARM_IDLE_MS = 60 * 60_000;

export interface ContainerLauncherOptions {
  /** The engine that runs a pool's containers (its `engine`, else the machine's). */
  engineFor: (pool: ContainerPoolConfig) => ContainerEngine;
  logger: Logger;
  /** A container that exited on its own, with its exit code when known: its session ends. */
  onUnexpectedExit: (handle: string, exit: { code?: number }) => void;
  /** The config's timeouts now: a warm container's hard lifetime is made of them. */
  timeouts: () => { newSession: number; maxAge: number };
  agent?: Dispatcher;
  readyTimeoutMs?: number;
  /** Sessions' videos and logs, as local sessions' (session-recorder.ts); none: nothing is recorded. */
  recordings?: SessionRecorder;
}

interface Running {
  engine: ContainerEngine;
  exit: ContainerExit;
  /** Set once gridgate itself removes it: its exit is then expected. */
  removing?: Promise<void>;
  /** Told when it exits while its start is awaited. */
  onExit?: (code: number | undefined) => void;
  /** Handed to a session (or being started for one); else a warm container. */
  inUse: boolean;
  /** The key of the session it was handed to. */
  session?: string;
  /** http://host:port of its noVNC server, when the pool publishes one. */
  vncOrigin?: string;
  /** The door to its browser's DevTools port, once its session is open (devtools-door.ts). */
  door?: DevtoolsDoor;
}

interface Warm {
  id: string;
  address: string;
  startedAt: number;
}

export class ContainerLaunchFailure extends LaunchFailure {
  constructor(details: string, options?: { cause?: unknown }) {
    super('unreachable', details, '', options);
    this.name = 'ContainerLaunchFailure';
  }
}

export class ContainerLauncher
  implements Launcher<ContainerPoolConfig>, WarmCounter, SessionOpener, DevtoolsDoors, VncOrigins
{
  private readonly running = new Map<string, Running>();
  private readonly warm = new Map<string, Warm[]>();
  /** Warm containers being started, per pool. */
  private readonly warming = new Map<string, number>();
  private readonly owner = ownMark();
  private closed = false;

  constructor(private readonly options: ContainerLauncherOptions) {}

  async start(request: LaunchRequest<ContainerPoolConfig>): Promise<LaunchedBrowser> {
    const pool = request.pool;
    request.signal.throwIfAborted();
    const recordings = this.options.recordings;
    const recording = await recordings?.begin(request);
    // A time zone or screen size is the environment a container starts with: a warm one has neither.
    const environment = screenAndZoneEnvironment(request.capabilities);
    const ownContainer = Object.keys(environment).length > 0;
    let address: { address: string; handle: string };
    try {
      address =
        (ownContainer ? undefined : await this.takeWarm(pool, request.signal)) ??
        (await this.startContainer(pool, {
          session: request.key,
          idleTimeoutMs: request.idleTimeoutMs,
          inUseMs: request.inUseMs,
          environment,
          signal: request.signal,
          onStarted: () => request.onStage?.('driver'),
        }));
    } catch (error) {
      await recordings?.discard(recording);
      throw error;
    }
    recordings?.track(address.handle, recording);
    const running = this.running.get(address.handle);
    if (running) running.session = request.key;
    return { ...address, capabilities: withScreenWindow(nodeCapabilities(request.capabilities)) };
  }

  /**
   * Removes the session's container, its video finished and its output copied into its recording first, then
   * keeps what it recorded; idempotent, and an unknown handle is no error.
   */
  async stop(handle: string, context: StopContext): Promise<void> {
    if (context.pool.kind !== 'container' || !/^[0-9a-f]{64}$/.test(handle)) return;
    const running = this.running.get(handle);
    await this.end(handle, running?.engine ?? this.options.engineFor(context.pool), context);
  }

  /** The sessions this launcher's containers serve now: what a head checks against a store other heads share. */
  sessions(): { key: string; handle: string }[] {
    return [...this.running].flatMap(([handle, running]) =>
      running.inUse && running.session && !running.removing ? [{ key: running.session, handle }] : [],
    );
  }

  /** Whether this launcher runs the container (a session's, or a warm one). */
  isRunning(handle: string): boolean {
    return this.running.has(handle);
  }

  /** The output so far of a container this launcher runs for a session; undefined for any other handle. */
  logs(handle: string): Readable | undefined {
    const running = this.running.get(handle);
    return running?.inUse ? running.engine.logs(handle) : undefined;
  }

  /**
   * Opens the DevTools door of the session's container where this machine can (root and pasta): gridgate then
   * serves se:cdp, records video and captures the console and network through it. Elsewhere, or for a browser
   * reporting no DevTools port, the session has no door and its CDP is whatever the image serves itself
   * (Selenium's node: se:cdp).
   */
  async opened(handle: string, capabilities: Capabilities): Promise<void> {
    const running = this.running.get(handle);
    if (!running) return;
    const door = await this.openDoor(handle, running, capabilities);
    const recordings = this.options.recordings;
    if (!recordings) return;
    // The recorder reaches the browser through the door alone: the address it gave is inside its container.
    try {
      await recordings.opened(handle, door ? withDevtoolsAt(capabilities, door) : {});
    } catch (error) {
      if (door) throw error;
      const why = (await doorsUnavailable()) ?? 'the browser reported no DevTools port';
      throw new ContainerLaunchFailure(
        `${(error as Error).message}: a container's screen, console and network are recorded through its ` +
          `DevTools door, and ${why}`,
      );
    }
  }

  private async openDoor(
    handle: string,
    running: Running,
    capabilities: Capabilities,
  ): Promise<string | undefined> {
    const port = devtoolsPortOf(devtoolsAddress(capabilities));
    if (port === undefined || (await doorsUnavailable())) return undefined;
    const door = await openDevtoolsDoor({ engine: running.engine, id: handle, port, owner: this.owner });
    running.door = door;
    // Removed meanwhile: the door goes with it.
    if (running.removing || !this.running.has(handle)) await door.close();
    return door.address;
  }

  /** host:port on this machine's loopback of the session's DevTools door; undefined when it has none. */
  devtools(handle: string): string | undefined {
    const running = this.running.get(handle);
    return running?.inUse ? running.door?.address : undefined;
  }

  vncOrigin(handle: string): string | undefined {
    const running = this.running.get(handle);
    return running?.inUse ? running.vncOrigin : undefined;
  }

  warmCount(pool: string): number {
    return this.warm.get(pool)?.length ?? 0;
  }

  /**
   * Tops each container pool's warm containers up to its `warm`, and removes those past WARM_IDLE_MS or of a
   * pool that keeps fewer now (a reload). Settles every start itself: never rejects.
   */
  async keepWarm(pools: readonly { kind: string; name: string }[]): Promise<void> {
    if (this.closed) return;
    const containerPools = pools.filter((pool): pool is ContainerPoolConfig => pool.kind === 'container');
    const wanted = new Map(containerPools.map((pool) => [pool.name, pool.warm ?? 0]));
    const now = Date.now();
    for (const [name, list] of this.warm) {
      const keep = wanted.get(name) ?? 0;
      const pool = containerPools.find((candidate) => candidate.name === name);
      const extra = list.filter((warm, index) => index >= keep || now - warm.startedAt > WARM_IDLE_MS);
      this.warm.set(
        name,
        list.filter((warm) => !extra.includes(warm)),
      );
      for (const warm of extra) {
        const engine = this.running.get(warm.id)?.engine ?? (pool && this.options.engineFor(pool));
        if (engine) await this.remove(warm.id, engine).catch(() => undefined);
      }
    }
    const starts: Promise<void>[] = [];
    for (const pool of containerPools) {
      const missing = (pool.warm ?? 0) - this.warmCount(pool.name) - (this.warming.get(pool.name) ?? 0);
      for (let n = 0; n < missing; n++) starts.push(this.startWarm(pool));
    }
    await Promise.all(starts);
  }

  /** Removes every container this launcher runs: sessions being created, running, and warm ones. */
  async stopAll(): Promise<void> {
    this.closed = true;
    this.warm.clear();
    await Promise.all(
      [...this.running].map(([id, running]) =>
        this.end(id, running.engine, { reason: 'server shutdown' }).catch(() => undefined),
      ),
    );
  }

  /**
   * A session's end: its video finished while the browser still shows its last page, its container's output
   * copied into its recording, the container removed, then what it recorded kept (or its directory cleared).
   */
  private async end(
    id: string,
    engine: ContainerEngine,
    context: { reason?: SessionEndReason; videoNotKept?: string },
  ): Promise<void> {
    const recordings = this.options.recordings;
    try {
      await recordings?.stopRecording(id);
      const logFile = recordings?.logFile(id);
      if (logFile && this.running.has(id))
        await engine.saveLogs(id, logFile).catch((error: unknown) =>
          this.options.logger.log('BACKGROUND_TASK_FAILED', {
            task: 'container log',
            handle: id,
            error: String(error),
          }),
        );
      await this.remove(id, engine);
    } finally {
      await recordings?.keep(id, context.reason, context.videoNotKept);
    }
  }

  private async startWarm(pool: ContainerPoolConfig): Promise<void> {
    this.warming.set(pool.name, (this.warming.get(pool.name) ?? 0) + 1);
    try {
      const timeouts = this.options.timeouts();
      const { address, handle } = await this.startContainer(pool, {
        session: WARM_SESSION,
        idleTimeoutMs: timeouts.maxAge,
        inUseMs: browserInUseMs(timeouts, WARM_IDLE_MS),
        signal: new AbortController().signal,
      });
      const running = this.running.get(handle);
      if (!running || this.closed) return;
      running.inUse = false;
      this.warm.set(pool.name, [
        ...(this.warm.get(pool.name) ?? []),
        { id: handle, address, startedAt: Date.now() },
      ]);
    } catch (error) {
      this.options.logger.log('BACKGROUND_TASK_FAILED', {
        task: 'warm container',
        pool: pool.name,
        error: String(error),
      });
    } finally {
      this.warming.set(pool.name, (this.warming.get(pool.name) ?? 1) - 1);
    }
  }

  /** A warm container of the pool that still answers ready, handed over; undefined when there is none. */
  private async takeWarm(
    pool: ContainerPoolConfig,
    signal: AbortSignal,
  ): Promise<{ address: string; handle: string } | undefined> {
    for (;;) {
      const warm = this.warm.get(pool.name)?.shift();
      if (!warm) return undefined;
      const running = this.running.get(warm.id);
      if (!running) continue;
      running.inUse = true;
      const status = await driverStatus({ address: warm.address, signal, agent: this.options.agent });
      if (status === 'ready') return { address: warm.address, handle: warm.id };
      await this.remove(warm.id, running.engine).catch(() => undefined);
    }
  }

  private async startContainer(
    pool: ContainerPoolConfig,
    start: {
      session: string;
      idleTimeoutMs: number;
      inUseMs: number;
      environment?: Record<string, string>;
      signal: AbortSignal;
      onStarted?: () => void;
    },
  ): Promise<{ address: string; handle: string }> {
    const engine = this.options.engineFor(pool);
    const args = containerRunArgs({
      pool,
      engine: engine.name,
      owner: this.owner,
      session: start.session,
      idleTimeoutSeconds: Math.ceil(start.idleTimeoutMs / 1000),
      lifetimeSeconds: hardLifetimeSeconds(start.inUseMs),
      environment: start.environment,
    });
    let id: string;
    try {
      id = await engine.run(args);
    } catch (error) {
      throw new ContainerLaunchFailure(`launch: ${(error as Error).message}`, { cause: error });
    }
    const exited = new AbortController();
    const running: Running = {
      engine,
      exit: engine.waitForExit(id),
      inUse: true,
      onExit: (code) =>
        exited.abort(
          new ContainerLaunchFailure(
            `launch: the container exited (code ${code ?? 'unknown'}) before its WebDriver endpoint was ready`,
          ),
        ),
    };
    this.running.set(id, running);
    // `exited` never rejects; a wait that failed says undefined, and the container counts as gone.
    running.exit.exited.then(
      (code) => this.exited(id, running, code),
      () => this.exited(id, running, undefined),
    );
    try {
      // Removed meanwhile (the server stopping): nothing to wait for.
      if (this.closed) throw new ContainerLaunchFailure('launch: the server is stopping');
      start.onStarted?.();
      const address = `${publishHost(pool)}:${await engine.publishedPort(id, pool.port)}`;
      if (pool.vncPort)
        running.vncOrigin = `http://${publishHost(pool)}:${await engine.publishedPort(id, pool.vncPort)}`;
      await waitForDriver({
        address,
        signal: AbortSignal.any([start.signal, exited.signal]),
        timeoutMs: this.options.readyTimeoutMs ?? READY_TIMEOUT_MS,
        agent: this.options.agent,
        sleep: realSleep,
        clock: systemClock,
      });
      running.onExit = undefined;
      return { address, handle: id };
    } catch (error) {
      // The client went away, the deadline passed, or the container never got ready: it goes.
      await this.remove(id, engine).catch(() => undefined);
      if (error instanceof DriverNotReady) throw new ContainerLaunchFailure(`driver: ${error.details}`);
      if (exited.signal.aborted && !start.signal.aborted) throw exited.signal.reason;
      throw error;
    }
  }

  private exited(id: string, running: Running, code: number | undefined): void {
    this.running.delete(id);
    running.door?.close().catch(() => undefined);
    for (const [name, list] of this.warm)
      this.warm.set(
        name,
        list.filter((warm) => warm.id !== id),
      );
    if (running.removing) return;
    if (running.onExit) {
      running.onExit(code);
      return;
    }
    if (running.inUse) this.options.onUnexpectedExit(id, { code });
  }

  private remove(id: string, engine: ContainerEngine): Promise<void> {
    const running = this.running.get(id);
    if (running?.removing) return running.removing;
    const removing = engine
      .remove(id)
      .then(() => running?.exit.exited.then(() => undefined))
      .finally(() => running?.door?.close());
    if (running) running.removing = removing;
    return removing;
  }
}
