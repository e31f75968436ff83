/**
 * Launcher for local pools: one chromedriver child per session, in its own process group so that
 * stopping it also stops Chromium and every helper process Chromium started, then the profile goes.
 * Pools with `warm` > 0 keep browsers started ahead of time (WarmBrowsers): a chromedriver plus a Chromium
 * in a process group of its own, which a request that asks nothing of the launch attaches to. Other local
 * pools keep one chromedriver started (ReadyChromedrivers), which any new session takes unless it wants
 * chromedriver's log (written only where chromedriver was told at its start).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserEnvironment } from '../../adapters/process/browser-environment';
import { type Group, stopGroup } from '../../adapters/process/process-group';
import type { Capabilities } from '../../core/capabilities';
import type { LocalPoolConfig, PoolConfig } from '../../core/config';
import { devtoolsAddress, withDevtoolsAt } from '../../core/devtools-address';
import type { HostPathContext } from '../../core/host-path-rules';
import type { DevtoolsDoors, HostPathBounds, SessionOpener, WarmCounter } from '../../core/pool-runtime';
import type { LaunchedBrowser, Launcher, LaunchRequest, Logger, StopContext } from '../../core/ports';
import { sessionTimeZone } from '../../core/screen-and-zone';
import { attachCapabilities, defaultArgs, launchNeeds } from './attach-capabilities';
import {
  type BrowserNamespace,
  closeBrowserNamespace,
  inNamespace,
  NAMESPACE_DEVTOOLS_PORT,
  NAMESPACE_DRIVER_PORT,
  openBrowserNamespace,
} from './browser-namespace';
import { asBrowserUser, browserUserOf, giveToBrowser } from './browser-user';
import { BrowserWatch } from './browser-watch';
import { PortRaceError, waitForPort } from './chromedriver-port';
import { chromiumCapabilities, wantsDownloads } from './chromium-capabilities';
import { launchChromium, warmChromiumArgs } from './chromium-process';
import { chromiumStartScript } from './chromium-start-script';
import { ChromiumStarts } from './chromium-starts';
import { type ChromiumStart, wrapperStart } from './chromium-wrapper';
import { LocalFileTransfer } from './local-file-transfer';
import { ReadyChromedrivers } from './ready-chromedrivers';
import { SessionDirectories, sessionDirectoryOf } from './session-directories';
import { sessionFolderContext } from './session-folder-bounds';
import type { SessionRecordings } from './session-recordings';
import { type ReadyBrowser, WarmBrowsers } from './warm-browsers';

export { LAUNCHED_BY_ENV } from '../../adapters/process/browser-environment';
/** Profile directories are named after the gridgate process that owns them: gridgate-chromium-<pid>-…. */
export const PROFILE_PREFIX = 'gridgate-chromium-';
/** The folder each chromedriver and its Chromium get as TMPDIR and HOME, named the same way: gridgate-tmp-<pid>-…. */
export const SCRATCH_PREFIX = 'gridgate-tmp-';
const PORT_RACE_ATTEMPTS = 3;

interface RunningDriver {
  child: ChildProcess;
  userDataDir: string;
  /**
   * TMPDIR and HOME of chromedriver and its Chromium: what they make there (chromedriver's scoped_dir, Chromium's
   * org.chromium.Chromium.* socket folder), which a stopped or killed browser leaves behind, goes with it.
   */
  scratchDir: string;
  exited: Promise<void>;
  /**
   * A warm browser's Chromium, launched apart from chromedriver: chromedriver attached to it neither
   * quits it on DELETE nor takes it down when it ends, so stop() ends this group too.
   */
  chromium?: Group;
  /** The network namespace chromedriver and its Chromium run in, when browsers get one (options.isolation). */
  namespace?: BrowserNamespace;
  /** host:port where gridgate reaches its Chromium's DevTools, once its session is open. */
  devtools?: string;
  /** The stop under way or done, shared by every caller of stop(); set once stopping began. */
  stopped?: Promise<void>;
  /** Set once stop() resolved: no process of the browser runs, what it held is being freed (tornDown). */
  outOfReach?: true;
  /** What follows the stop: the browser's network namespace and folders go; shutdown waits for it. */
  tornDown?: Promise<void>;
  /**
   * Started ahead of demand (a warm browser, a ready chromedriver) and not yet any session's: its exit is
   * no session's browser exiting, and it is not among the running sessions' browsers.
   */
  warm: boolean;
}

/** Which part of a session's browser ended unasked, and how (a browser chromedriver started is not ours to wait on). */
export interface UnexpectedExit {
  process: 'chromedriver' | 'chromium';
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChromedriverLauncherOptions {
  /** Called when a session's chromedriver or Chromium ends without being stopped (a crash, or killed from outside). */
  onUnexpectedExit?: (handle: string, exit: UnexpectedExit) => void;
  /** Records the sessions that ask for a video or a log; none: nothing is recorded. */
  recordings?: SessionRecordings;
  /**
   * Each chromedriver and its Chromium in a network namespace of their own (browser-namespace.ts), the
   * pages kept from these ports of this machine (gridgate's own) and from every chromedriver and DevTools
   * port; none: they share the machine's network, as any program of gridgate's user.
   */
  isolation?: { gridPorts: readonly number[] };
  /** Hears a stopped browser's teardown that failed (its network or folders), which no caller waits for. */
  logger?: Logger;
}

/** What a session's own chromedriver is started with: where it logs, and the time zone its Chromium sees. */
interface DriverLaunch {
  driverArgs?: string[];
  timeZone?: string;
}

export class ChromedriverLauncher
  implements Launcher<LocalPoolConfig>, WarmCounter, HostPathBounds, SessionOpener, DevtoolsDoors
{
  private readonly drivers = new Map<string, RunningDriver>();
  private readonly warm = new WarmBrowsers({
    spawn: (pool, signal) => this.spawnWarm(pool, signal),
    alive: (handle) => this.alive(handle),
    claim: (handle) => {
      const driver = this.drivers.get(handle);
      if (!driver || !this.alive(handle)) return false;
      driver.warm = false;
      return true;
    },
    stop: (handle) => this.stop(handle),
  });
  private readonly readyDrivers = new ReadyChromedrivers({
    spawn: (pool, signal) => this.spawnDriver(pool.chromedriver, signal, 'ready'),
    alive: (handle) => this.alive(handle),
    stop: (handle) => this.stop(handle),
  });

  /** Each browser's directory for uploads and managed downloads, gone when it stops. */
  private readonly directories = new SessionDirectories(undefined, (handle) =>
    this.options.isolation ? browserUserOf(handle) : undefined,
  );
  /** Selenium Grid 4's /se/file and /se/files, which chromedriver does not serve, for browsers serving a session. */
  readonly files = new LocalFileTransfer(this.directories, (handle) => {
    const driver = this.drivers.get(handle);
    return driver !== undefined && !driver.warm && driver.stopped === undefined;
  });
  // The Chromium a session's chromedriver started is chromedriver's child, not ours: watched in /proc.
  private readonly browsers = new BrowserWatch((handle) =>
    this.partExited(handle, { process: 'chromium', code: null, signal: null }),
  );

  /** How each pool's Chromium is started: Debian's wrapper worked out once, its real binary exec'd. */
  private readonly starts = new ChromiumStarts(
    (chromium) => findStart(chromium),
    (chromium, reason) => this.options.logger?.log('CHROMIUM_WRAPPER_KEPT', { chromium, reason }),
  );

  /** Set by stopAll (shutdown): a chromedriver started after it would outlive gridgate. */
  private stopped = false;

  constructor(private readonly options: ChromedriverLauncherOptions = {}) {}

  /** The browser runs as gridgate's user: what its commands name must lie in its session's folder. */
  hostPaths(handle: string): HostPathContext {
    return sessionFolderContext(handle);
  }

  folderOf(handle: string): string | undefined {
    return sessionDirectoryOf(handle);
  }

  async start(request: LaunchRequest<LocalPoolConfig>): Promise<LaunchedBrowser> {
    const { pool, capabilities, signal, onStage } = request;
    signal.throwIfAborted();
    const runningAsRoot = isRoot();
    // A request that needs launch-time options leaves the warm browsers to those that do not; so does
    // one that wants chromedriver's log, which chromedriver writes only where it was told at its start.
    // A time zone is the environment chromedriver starts Chromium with: only a browser started for it has it.
    const timeZone = sessionTimeZone(capabilities);
    const warm =
      launchNeeds(pool, capabilities, runningAsRoot) === undefined && !request.recording?.log && !timeZone
        ? await this.warm.take(pool)
        : undefined;
    const recordings = this.options.recordings;
    const recording = await recordings?.begin(request);
    if (warm) {
      onStage?.('driver');
      recordings?.track(warm.handle, recording);
      if (signal.aborted) {
        await this.stop(warm.handle);
        throw signal.reason;
      }
      return {
        address: warm.address,
        handle: warm.handle,
        capabilities: attachCapabilities(capabilities, warm.attachAddress ?? warm.debuggerAddress),
      };
    }
    const driver =
      (recording?.driverArgs.length || timeZone ? undefined : await this.takeReadyDriver(pool)) ??
      (await this.spawnDriver(pool.chromedriver, signal, undefined, onStage, {
        driverArgs: recording?.driverArgs,
        timeZone,
      }).catch(async (error: unknown) => {
        await recordings?.discard(recording);
        throw error;
      }));
    recordings?.track(driver.handle, recording);
    const running = this.drivers.get(driver.handle);
    const namespace = running?.namespace;
    let downloadDirectory: string | undefined;
    let binary: string | undefined;
    try {
      signal.throwIfAborted();
      if (wantsDownloads(capabilities))
        downloadDirectory = await this.directories.make(driver.handle, 'downloads');
      if (running) binary = await startScript(driver.handle, running, await this.starts.of(pool.chromium));
    } catch (error) {
      await this.stop(driver.handle);
      throw error;
    }
    return {
      address: driver.address,
      handle: driver.handle,
      capabilities: chromiumCapabilities(pool, capabilities, {
        userDataDir: driver.userDataDir,
        runningAsRoot,
        downloadDirectory,
        binary,
        ...(namespace ? { devtoolsPort: NAMESPACE_DEVTOOLS_PORT } : {}),
      }),
      ...served(downloadDirectory),
    };
  }

  /**
   * Keeps each local pool's `warm` browsers started, or for a pool without, one chromedriver (none for
   * other kinds); call with every config.
   */
  keepWarm(pools: readonly PoolConfig[]): void {
    if (this.stopped) return;
    // Worked out before the first session needs it (of() settles every failure itself).
    for (const pool of pools) if (pool.kind === 'local') this.starts.of(pool.chromium).catch(() => undefined);
    this.warm.keep(pools);
    this.readyDrivers.keep(pools);
  }

  /** The pool's ready chromedriver, now the session's, with its profile: its Chromium is watched from here on. */
  private async takeReadyDriver(pool: LocalPool): Promise<Omit<ReadyBrowser, 'debuggerAddress'> | undefined> {
    const ready = await this.readyDrivers.take(pool);
    const driver = ready && this.drivers.get(ready.handle);
    if (!ready || !driver) return undefined;
    driver.warm = false;
    driver.userDataDir = await newProfile();
    if (driver.child.pid !== undefined) this.browsers.watch(ready.handle, driver.child.pid);
    return { ...ready, userDataDir: driver.userDataDir };
  }

  /** Browsers of this pool started ahead of demand and ready for a new session now. */
  warmCount(pool: string): number {
    return this.warm.count(pool);
  }

  /**
   * A warm browser: chromedriver, then Chromium (the pool's default arguments, a fresh profile), each in
   * its own process group, both answering when this resolves. Nobody waits for it, so one after the
   * other is fast enough and keeps failures simple: whatever started is stopped.
   */
  private async spawnWarm(pool: LocalPool, signal: AbortSignal): Promise<ReadyBrowser> {
    const driver = await this.spawnDriver(pool.chromedriver, signal, 'warm');
    const running = this.drivers.get(driver.handle) as RunningDriver;
    const { namespace } = running;
    const args = warmChromiumArgs(
      defaultArgs(pool, isRoot(), driver.userDataDir),
      namespace ? NAMESPACE_DEVTOOLS_PORT : 0,
    );
    // In a namespace, Chromium runs as the browser's user and listens where chromedriver (inside too)
    // attaches; gridgate reaches it forwarded.
    const user = namespace && browserUserOf(driver.handle);
    const start = await this.starts.of(pool.chromium);
    const startArgs = [...start.flags, ...args];
    const [binary, argv] =
      namespace && user
        ? inNamespace(namespace.name, ...asBrowserUser(user, start.binary, startArgs))
        : [start.binary, startArgs];
    try {
      if (user)
        for (const path of [driver.userDataDir, homeOf(running.scratchDir)]) await giveToBrowser(path, user);
      const chromium = await launchChromium(
        binary,
        argv,
        driver.userDataDir,
        { ...browserEnvironment(homeOf(running.scratchDir)), ...start.env },
        signal,
        namespace?.devtools,
        (child, exited) => {
          running.chromium = { child, exited };
          child.once('exit', (code, exitSignal) =>
            this.partExited(driver.handle, { process: 'chromium', code, signal: exitSignal }),
          );
        },
      );
      return {
        ...driver,
        debuggerAddress: chromium.debuggerAddress,
        ...(namespace ? { attachAddress: `127.0.0.1:${NAMESPACE_DEVTOOLS_PORT}` } : {}),
      };
    } catch (error) {
      await this.stop(driver.handle);
      throw error;
    }
  }

  /**
   * A chromedriver or its Chromium ended unasked. A session's is reported (the session is over); a warm
   * browser's, while it waited, is dropped, and its profile goes.
   */
  private partExited(handle: string, exit: UnexpectedExit): void {
    const driver = this.drivers.get(handle);
    if (!driver || driver.stopped !== undefined) return;
    if (!driver.warm) {
      this.options.onUnexpectedExit?.(handle, exit);
      return;
    }
    if (!this.readyDrivers.discard(handle)) this.warm.discard(handle);
    void this.stop(handle).catch(() => undefined);
  }

  /**
   * A chromedriver for a session (`ahead` undefined), for a warm browser, or kept ready; all but a ready
   * one get their Chromium's profile directory now (a ready one's is made when a session takes it).
   */
  private async spawnDriver(
    chromedriver: string,
    signal: AbortSignal,
    ahead: 'warm' | 'ready' | undefined,
    onStage?: LaunchRequest['onStage'],
    session: DriverLaunch = {},
  ): Promise<Omit<ReadyBrowser, 'debuggerAddress'>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.spawnDriverOnce(chromedriver, signal, ahead, onStage, session);
      } catch (error) {
        if (!(error instanceof PortRaceError) || attempt === PORT_RACE_ATTEMPTS || signal.aborted)
          throw error;
      }
    }
  }

  private async spawnDriverOnce(
    chromedriver: string,
    signal: AbortSignal,
    ahead: 'warm' | 'ready' | undefined,
    onStage: LaunchRequest['onStage'],
    { driverArgs = [], timeZone }: DriverLaunch,
  ): Promise<Omit<ReadyBrowser, 'debuggerAddress'>> {
    const warm = ahead !== undefined;
    const userDataDir = ahead === 'ready' ? '' : await newProfile();
    const scratchDir = await newScratch();
    if (this.stopped) {
      await Promise.all(
        [userDataDir, scratchDir].map((dir) => dir && rm(dir, { recursive: true, force: true })),
      );
      throw new Error('gridgate is stopping: no browser is started');
    }
    onStage?.('launch');
    let namespace: BrowserNamespace | undefined;
    const isolation = this.options.isolation;
    if (isolation) {
      try {
        namespace = await openBrowserNamespace({
          gridPorts: isolation.gridPorts,
          env: browserEnvironment(homeOf(scratchDir)),
          signal,
        });
      } catch (error) {
        await Promise.all(
          [userDataDir, scratchDir].map((dir) => dir && rm(dir, { recursive: true, force: true })),
        );
        throw error;
      }
    }
    const [command, args] = namespace
      ? inNamespace(namespace.name, chromedriver, [`--port=${NAMESPACE_DRIVER_PORT}`, ...driverArgs])
      : [chromedriver, ['--port=0', ...driverArgs]];
    // Chromium inherits chromedriver's environment: its TZ is the clock pages see (se:timeZone).
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...browserEnvironment(homeOf(scratchDir)), ...(timeZone ? { TZ: timeZone } : {}) },
    });
    const handle = String(child.pid ?? `failed-${Date.now()}`);
    // A chromedriver that could not be spawned reports 'error' and never 'exit'.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const driver: RunningDriver = { child, userDataDir, scratchDir, exited, warm, namespace };
    this.drivers.set(handle, driver);
    this.directories.open(handle);
    child.once('exit', (code, exitSignal) =>
      this.partExited(handle, { process: 'chromedriver', code, signal: exitSignal }),
    );
    try {
      if (namespace) await this.directories.prepare(handle);
      onStage?.('driver');
      const port = await waitForPort(child, signal);
      // A session's chromedriver starts its Chromium at the new-session request; a warm one's is ours.
      if (!warm && child.pid !== undefined) this.browsers.watch(handle, child.pid);
      return { handle, address: namespace?.driver ?? `127.0.0.1:${port}`, userDataDir };
    } catch (error) {
      await this.stop(handle);
      throw error;
    }
  }

  /**
   * The session's browser answered its new-session request: where its DevTools are reached is known (the port
   * forwarded into its namespace, else the one chromedriver reports), its recording starts, its pool's refill
   * too.
   */
  async opened(handle: string, capabilities: Capabilities): Promise<void> {
    this.readyDrivers.launched(handle);
    const driver = this.drivers.get(handle);
    // A Chromium in a namespace is reached by a pipe or inside it: chromedriver's answer says nothing usable.
    const devtools = driver?.namespace?.devtools ?? devtoolsAddress(capabilities);
    if (driver && devtools) driver.devtools = devtools;
    await this.options.recordings?.opened(
      handle,
      devtools ? withDevtoolsAt(capabilities, devtools) : capabilities,
    );
  }

  /** host:port on this machine where the session's Chromium's DevTools answer; undefined before it opened. */
  devtools(handle: string): string | undefined {
    return this.drivers.get(handle)?.devtools;
  }

  /**
   * Stops the browser: resolves once none of its processes runs and what it recorded is kept, which every
   * caller, the first or one arriving meanwhile, waits for. Its network namespace and folders go after
   * (tornDown): a DELETE is answered without waiting for them, and shutdown (stopAll) waits for them.
   */
  stop(handle: string, context?: StopContext): Promise<void> {
    // A session whose start failed: its pool's ready chromedriver is replaced now.
    this.readyDrivers.launched(handle);
    const driver = this.drivers.get(handle);
    if (!driver) return Promise.resolve();
    if (driver.stopped) return driver.stopped;
    const stopped = this.stopDriver(handle, driver, context);
    driver.stopped = stopped;
    // Even after a failed stop (a recording that could not be kept): the processes were ended first.
    driver.tornDown = stopped.then(
      () => this.tearDown(handle, driver),
      () => this.tearDown(handle, driver),
    );
    return stopped;
  }

  /** Resolves once a stopped browser's namespace and folders are gone (at once for a handle not known). */
  async tornDown(handle: string): Promise<void> {
    await this.drivers.get(handle)?.tornDown;
  }

  /**
   * The video and the console and network capture first, while the browser still shows its last page; both
   * process groups; then what the session recorded, once chromedriver has written its log (kept before the
   * answer, so a client fetching its video right after DELETE finds it).
   */
  private async stopDriver(handle: string, driver: RunningDriver, context?: StopContext): Promise<void> {
    this.browsers.unwatch(handle);
    const recordings = this.options.recordings;
    await recordings?.stopRecording(handle);
    const groups: Group[] = [driver, ...(driver.chromium ? [driver.chromium] : [])];
    await Promise.all(groups.map(stopGroup));
    driver.outOfReach = true;
    await recordings?.keep(handle, context?.reason, context?.videoNotKept);
  }

  /**
   * What a stopped browser held and nothing reaches any more: its network namespace (pasta, then the
   * namespace), its profile, its scratch folder and its session directory; then the handle is forgotten.
   * Measured here: 20–500 ms under load, most of it removing the profile, which a DELETE no longer waits for.
   */
  private async tearDown(handle: string, driver: RunningDriver): Promise<void> {
    const removed = (dir: string) =>
      dir && rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    try {
      await Promise.all([
        driver.namespace && closeBrowserNamespace(driver.namespace),
        removed(driver.userDataDir),
        removed(driver.scratchDir),
        this.directories.remove(handle),
      ]);
    } catch (error) {
      this.options.logger?.log('BROWSER_STOP_FAILED', { handle, error: String(error) });
    } finally {
      // Unless the pid came back meanwhile as another chromedriver's.
      if (this.drivers.get(handle) === driver) this.drivers.delete(handle);
    }
  }

  /** Stops every chromedriver and Chromium: those serving or being started for sessions, and the warm ones. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    this.browsers.close();
    await Promise.all([this.warm.close(), this.readyDrivers.close()]);
    const stops = await Promise.allSettled([...this.drivers.keys()].map((handle) => this.stop(handle)));
    // Every teardown, also those of stops that ended before: nothing of a browser outlives gridgate.
    await Promise.all([...this.drivers.keys()].map((handle) => this.tornDown(handle)));
    const failed = stops.find((stop) => stop.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Handles of the browsers running now for sessions (warm browsers and ready chromedrivers not included,
   * nor stopped ones whose folders are still being removed).
   */
  running(): string[] {
    return [...this.drivers].flatMap(([handle, driver]) => (countsAsRunning(driver) ? [handle] : []));
  }

  /** Whether the handle is among running(), without listing them: asked per record by the sweeps. */
  isRunning(handle: string): boolean {
    const driver = this.drivers.get(handle);
    return driver !== undefined && countsAsRunning(driver);
  }

  private alive(handle: string): boolean {
    const driver = this.drivers.get(handle);
    return (
      driver !== undefined &&
      driver.stopped === undefined &&
      runs(driver.child) &&
      (driver.chromium === undefined || runs(driver.chromium.child))
    );
  }
}

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

const isRoot = () => process.getuid?.() === 0;

const newProfile = () => mkdtemp(join(tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
/**
 * A browser's own folder: its home (HOME and TMPDIR of chromedriver and Chromium), and beside it, out of the
 * home a namespaced Chromium's user owns, the script chromedriver starts Chromium by. The folder itself may
 * only be passed through by others, so that user reaches its home and cannot replace the script.
 */
async function newScratch(): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  await chmod(scratch, 0o711);
  await mkdir(homeOf(scratch), { mode: 0o700 });
  return scratch;
}

const homeOf = (scratchDir: string) => join(scratchDir, 'home');

/** What gridgate adds to the browser's new-session answer: managed downloads, which chromedriver knows nothing of. */
function served(downloadDirectory: string | undefined) {
  return downloadDirectory ? { served: { 'se:downloadsEnabled': true } } : {};
}

/**
 * What chromedriver is told is Chromium: a start script in the browser's own folder, which also opens the first
 * page chromedriver would have (chromium-start-script.ts).
 */
async function startScript(handle: string, driver: RunningDriver, start: ChromiumStart): Promise<string> {
  const owned = [driver.userDataDir, homeOf(driver.scratchDir)];
  const id = driver.namespace && browserUserOf(handle);
  if (driver.namespace && id === undefined) throw new Error(`no user for browser ${handle}`);
  const user = id === undefined ? undefined : { id, owned };
  const path = join(driver.scratchDir, 'chromium');
  await writeFile(path, chromiumStartScript(start, user), { mode: 0o700 });
  return path;
}

/** Debian's wrapper run once in a browser's environment and folder, which go after. */
async function findStart(chromium: string): Promise<ChromiumStart | string> {
  const scratch = await newScratch();
  try {
    return await wrapperStart(chromium, { env: browserEnvironment(homeOf(scratch)), folder: scratch });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const countsAsRunning = (driver: RunningDriver) => !driver.warm && !driver.outOfReach;

const runs = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
