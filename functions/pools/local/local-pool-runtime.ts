/**
 * What a Node server's local pools run on, made once at its start: what a killed gridgate was recording kept
 * and its leftovers swept, the chromedriver launcher (each browser in a network namespace of its own when the
 * config asks and the machine can), the sessions' videos and logs on this machine's disk, and the periodic
 * work (warm browsers, recordings past their retention).
 */
import type { Config, LocalPoolConfig } from '../../core/config';
import { type PeriodicTask, runEvery } from '../../core/periodic-task';
import type { PoolRuntime } from '../../core/pool-runtime';
import type { Logger, Metrics } from '../../core/ports';
import type { KindRuntime, RuntimeContext } from '../pool-kind';
import { namespacesUnavailable } from './browser-namespace';
import { localBrowserNetworks } from './browser-network-listener';
import { ChromedriverLauncher, type UnexpectedExit } from './chromedriver-launcher';
import { ffmpegInstaller } from './ensure-ffmpeg';
import { keepInterruptedRecordings } from './interrupted-recordings';
import { LocalRecordings } from './local-recordings';
import { sweepOrphans } from './orphan-sweep';
import { SessionRecordings } from './session-recordings';

// How soon a reload's new `warm` counts (or a warm browser that died) are acted on.
const WARM_CHECK_MS = 1000;
// How often recordings past their retention are removed (the size cap is also kept at each new one).
const RECORDINGS_PRUNE_MS = 60_000;

export interface LocalPoolRuntime {
  launcher: ChromedriverLauncher;
  /** The kind's runtime for GridDeps: that launcher and the parts it also plays (localRuntime). */
  runtime: PoolRuntime<LocalPoolConfig>;
  /** Local sessions' videos and logs; a running session's log is served as it grows. */
  recordings: LocalRecordings;
  /** Sessions' recordings while they run, kept into `recordings` at their end (container sessions' too). */
  sessionRecordings: SessionRecordings;
  /** Starts the periodic work; it reads the config at every tick, so a reload's `warm` counts take effect. */
  runPeriodically(): PeriodicTask[];
}

export interface LocalPoolContext {
  /** The config at start-up: the isolation asked for, the grid's port kept from the browsers, where recordings were. */
  config: Config;
  /** The config in use now (reloads swap it). */
  current: () => Config;
  logger: Logger;
  metrics: Metrics;
  /** A browser that exited without being stopped: its session is over. */
  onUnexpectedExit: (handle: string, exit: UnexpectedExit) => void;
}

export async function startLocalPoolRuntime(context: LocalPoolContext): Promise<LocalPoolRuntime> {
  const { config, current, logger, metrics } = context;
  // What a killed gridgate was recording is kept before the sweep removes its directories.
  await keepRecordingsOfKilledServers(config, logger);
  const orphans = await sweepOrphans();
  if (orphans.processes + orphans.profiles + orphans.namespaces > 0)
    logger.log('ORPHANS_REMOVED', { ...orphans });
  if (orphans.processes)
    metrics.count('OrphansReaped', { reason: 'process left running' }, orphans.processes);
  if (orphans.profiles) metrics.count('OrphansReaped', { reason: 'profile left behind' }, orphans.profiles);
  const recordingSettings = () => current().recording;
  const recordings: LocalRecordings = new LocalRecordings(recordingSettings, (key) =>
    sessionRecordings.liveLog(key),
  );
  const sessionRecordings: SessionRecordings = new SessionRecordings({
    store: recordings,
    settings: recordingSettings,
    ffmpeg: ffmpegInstaller(logger),
    logger,
  });
  const launcher = new ChromedriverLauncher({
    recordings: sessionRecordings,
    isolation: await browserIsolation(config, logger),
    onUnexpectedExit: context.onUnexpectedExit,
    logger,
  });
  const runPeriodically = () => {
    launcher.keepWarm(Object.values(current().pools));
    return [
      runEvery('recordings retention', RECORDINGS_PRUNE_MS, () => recordings.prune(Date.now()), logger),
      runEvery(
        'warm browsers',
        WARM_CHECK_MS,
        () => launcher.keepWarm(Object.values(current().pools)),
        logger,
      ),
    ];
  };
  return { launcher, runtime: localRuntime(launcher), recordings, sessionRecordings, runPeriodically };
}

/**
 * The local kind's runtime as the wiring makes it (local-pool-kind.ts): the runtime, its sessions' videos and
 * logs on this machine's disk, which container sessions record into too, and its browsers here.
 */
export async function makeLocalRuntime(context: RuntimeContext): Promise<KindRuntime<LocalPoolConfig>> {
  const local = await startLocalPoolRuntime(context);
  return {
    runtime: local.runtime,
    artifacts: local.recordings,
    recordings: { recorder: local.sessionRecordings, kept: local.recordings },
    here: {
      isRunning: (handle) => local.launcher.isRunning(handle),
      stopAll: () => local.launcher.stopAll(),
      runPeriodically: local.runPeriodically,
    },
  };
}

/**
 * The local kind's runtime: the chromedriver launcher, which also counts its warm browsers, serves file
 * transfer, bounds what a session's commands may name of this machine's files, starts a session's recording
 * once its browser answered, and says where its DevTools answer; the way into its browsers' networks; and
 * ends a deleted session by stopping its browser alone.
 */
export function localRuntime(launcher: ChromedriverLauncher): PoolRuntime<LocalPoolConfig> {
  return {
    launcher,
    warm: launcher,
    files: launcher.files,
    hostPaths: launcher,
    opener: launcher,
    devtools: launcher,
    network: localBrowserNetworks,
    // Only a browser this process runs: another head's is that head's to stop (use-cases/session-ownership.ts).
    ending: { stopEndsSession: (handle) => launcher.isRunning(handle) },
  };
}

/** Keeps the recordings of sessions a gridgate process that was killed outright was running, ended so. */
async function keepRecordingsOfKilledServers(config: Config, logger: Logger): Promise<void> {
  const kept = await keepInterruptedRecordings({
    store: new LocalRecordings(() => config.recording),
    ffmpeg: ffmpegInstaller(logger),
    flushMs: config.recording.flushTimeout,
    logger,
  });
  for (const session of kept) {
    logger.log('SESSION_ENDED', {
      session: session.key,
      user: session.user,
      pool: session.pool,
      reason: session.endReason,
      durationMs: (session.endedAt ?? session.createdAt) - session.createdAt,
      video: session.video !== undefined,
      log: session.log !== undefined,
    });
  }
}

/**
 * With `isolation: "namespace"`, local browsers each in a network namespace of their own, kept from
 * gridgate's port; on a machine that cannot (not root, tools missing) they share its network, and the start
 * says so.
 */
async function browserIsolation(
  config: Config,
  logger: Logger,
): Promise<{ gridPorts: readonly number[] } | undefined> {
  if (config.isolation === 'none') return undefined;
  const unavailable = await namespacesUnavailable();
  if (unavailable === undefined) return { gridPorts: [config.port] };
  logger.log('ISOLATION_UNAVAILABLE', { reason: unavailable });
  return undefined;
}
