/**
 * Wires the Node server: the local launcher and its recordings, where a deployment keeps ecs sessions'
 * recordings (ecs-recordings.ts), the store the config names (in memory, or a DynamoDB table shared with
 * other routers), given to the one wiring (grid-wiring.ts); then the app,
 * WebSocket proxy, sweeps, reloads and shutdown.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { MemorySessionStore } from '../adapters/memory/memory-session-store';
import { PrometheusMetrics } from '../adapters/prometheus/prometheus-metrics';
import { isHubOrigin } from '../core/browser-network';
import type { Config, EksPoolConfig } from '../core/config';
import type { EndedSessions } from '../core/ended-sessions';
import { freeStaleSlots, STALE_SLOT_GRACE_MS } from '../core/free-stale-slots';
import { type GridDeps, sessionPool } from '../core/grid-deps';
import { madeOnFirstUse } from '../core/made-on-first-use';
import { runEvery } from '../core/periodic-task';
import { reportGridGauges } from '../core/pool-gauges';
import { type Launcher, type Logger, type Metrics, systemClock } from '../core/ports';
import type { RequestPricing } from '../core/session-cost';
import { createApp, type MetricsPage } from '../http/create-app';
import { newRequestCounter, type RequestCounter } from '../http/grid-info';
import { startContainerPoolRuntime } from '../pools/container/container-pool-runtime';
import { ecsRecordings } from '../pools/ecs/ecs-recordings';
import type { EksPodApi } from '../pools/eks/eks-pod-api';
import { type KeepPodLog, podLogKeeper } from '../pools/eks/pod-log-keeper';
import type { ChromedriverLauncher } from '../pools/local/chromedriver-launcher';
import { startLocalPoolRuntime } from '../pools/local/local-pool-runtime';
import { lazyAppListener } from '../servers/node/app-listener';
import { answerClientErrors } from '../servers/node/client-errors';
import { commandFastPath } from '../servers/node/command-fast-path';
import { relayedRequests } from '../servers/node/primary-relay';
import { limitRequestArrival, requestArrivalOptions } from '../servers/node/request-arrival';
import { attachWebSocketProxy } from '../servers/node/websocket-proxy';
import { endSession } from '../use-cases/end-session';
import { endAllSessions, expireSessions } from '../use-cases/expire-sessions';
import { headSessions } from '../use-cases/session-ownership';
import { stopBrowsersEndedElsewhere } from '../use-cases/stop-browsers-ended-elsewhere';
import { createUpstreamAgent } from '../webdriver-client/upstream-client';
import { type AwsAdapters, awsAdapters, onFirstUse } from './aws-adapters';
import { ConfigReloader, type ReloadTrigger } from './config-reloader';
import { ecsRecordingPlaces } from './deployed-config';
import { EVERY_POOL_KIND, gridDeps } from './grid-wiring';
import { reachNotice } from './reach-notice';

const EXPIRY_SWEEP_MS = 1000;
// A shared store is a table every router reads: sweep it less often (idle limits are minutes).
const SHARED_EXPIRY_SWEEP_MS = 10_000;

export interface RunningGrid {
  url: string;
  port: number;
  deps: GridDeps;
  launcher: ChromedriverLauncher;
  /** Reads the config file again (SIGHUP); false, with the problems logged, when the old config stays. */
  reload(trigger?: ReloadTrigger): Promise<boolean>;
  /** Ends every session, stops every browser, closes the server. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** The config file `config` came from, reloaded when it changes; none: the built-in defaults, no reloads. */
  configPath?: string;
  /** How often the config file is checked for changes; 0 turns that off (reload() still works). */
  reloadPollMs?: number;
  /** The config file's fingerprint from before it was read (loadConfig), so a change during start-up reloads. */
  configFingerprint?: string;
  /** GRIDGATE_DEPLOYMENT's text, laid over the config file at every reload. */
  deployment?: string;
  /** False where clients cannot open WebSockets to the server (a Lambda Web Function). */
  webSockets?: boolean;
  /**
   * Whether browsers must name the server by a name it knows (AppOptions.knownHostsOnly); default true.
   * False in a Lambda Web Function, reached only through its function URL, over TLS.
   */
  knownHostsOnly?: boolean;
  /** The AWS adapters (DynamoDB store, ECS launcher); tests give their own. */
  aws?: AwsAdapters;
  /** What each request passes through before this server (a Lambda Web Function's URL); none: nothing billed per request. */
  requestPricing?: RequestPricing;
  /** Where measurements go (EMF in a Lambda Web Function); by default Prometheus series at GET /metrics. */
  metrics?: Metrics;
  /** How often the expiry and stale-slot sweeps run: by default 1 s, 10 s with a shared store. */
  sweepMs?: number;
  /**
   * Clock slack between heads: how long past `timeouts.newSession` a slot without a session is left alone
   * (see freeStaleSlots), and past its maximum age another head's local session.
   */
  staleSlotGraceMs?: number;
  /**
   * The primary of a server with worker processes (grid-primary.ts): listen on this Unix socket for the
   * requests the workers relay, instead of `host` and `port`, which the workers serve (WebSockets too).
   */
  socketPath?: string;
  /** The sessions ended lately, when other processes of this server must hear of each (its workers). */
  ended?: EndedSessions;
  /** What /ping counts, when the workers count what they serve into it too. */
  requests?: RequestCounter;
  /** What GET /metrics answers instead of this process's own series (the whole server's, with workers). */
  metricsPage?: MetricsPage;
  /** Called after each reload that swapped a new config in (SIGHUP or the file changed). */
  onReloaded?: () => void;
}

export async function startGrid(
  config: Config,
  secret: Buffer,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningGrid> {
  // First, so a missing or broken users file stops the start before anything runs.
  const users = config.usersFile
    ? HtpasswdUserDirectory.open(config.usersFile, { clock: systemClock, logger })
    : undefined;
  const aws = options.aws ?? awsAdapters;
  // Read when a hub is first reached, so a hub a reload adds gets a hub's connections too.
  const agent = createUpstreamAgent((origin) => isHubOrigin(deps.config.pools, origin));
  // A DynamoDB store is shared with other routers: quotas hold across them, and so do sessions.
  const shared = config.store.kind === 'dynamodb';
  const sessions =
    config.store.kind === 'dynamodb'
      ? await aws.sessionStore(config.store.table, logger)
      : new MemorySessionStore();
  // Measurements go where the caller says (EMF in a Lambda Web Function), else to GET /metrics.
  const metrics = options.metrics ?? new PrometheusMetrics({ logger });
  const prometheus = metrics instanceof PrometheusMetrics ? metrics : undefined;
  // Local pools' launcher and recordings, on this machine (pools/local/local-pool-runtime.ts).
  // A browser (a local one, or a container) that exited without being stopped: its session is over.
  const onUnexpectedExit = (handle: string, exit: object) => {
    logger.log('BROWSER_EXITED', { handle, ...exit });
    // The store may be down just now: the session then ends at its idle timeout, by the sweep.
    sessions
      .running()
      .then((running) => {
        const record = running.find((r) => r.handle === handle);
        if (record) return endSession(deps, record, 'browser exited');
      })
      .catch((error: unknown) =>
        logger.log('BACKGROUND_TASK_FAILED', { task: 'browser exit', handle, error: String(error) }),
      );
  };
  const local = await startLocalPoolRuntime({
    config,
    current: () => deps.config,
    logger,
    metrics,
    onUnexpectedExit,
  });
  const containers = await startContainerPoolRuntime({
    config,
    current: () => deps.config,
    logger,
    agent,
    onUnexpectedExit,
    // Container sessions record as local ones do, into the same kept recordings.
    recordings: { recorder: local.sessionRecordings, kept: local.recordings },
  });
  const { launcher, recordings } = local;
  prometheus?.onScrape((into) => reportGridGauges(deps, into));
  // ecs sessions' videos and browser logs where the stack keeps them, as the router Lambda reads them: a head
  // of the service or Web Function front door is given the same GRIDGATE_DEPLOYMENT and the same grants.
  // eks pools that name a kubeconfig: one client per file and context, for their launcher and their logs.
  const kubeconfigPods = kubeconfigPodApisOnFirstUse();
  const ecs = ecsRecordings(
    ecsRecordingPlaces(options.deployment),
    (session) => sessionPool(deps, session),
    aws.logsClient,
  );
  const deps = gridDeps({
    config,
    secret,
    logger,
    metrics,
    sessions,
    agent,
    aws,
    // A reload may add a pool of any kind.
    kinds: EVERY_POOL_KIND,
    local: { runtime: local.runtime, recordings },
    container: { runtime: containers.runtime, recordings: containers.recordings },
    ...(ecs ? { ecsRecordings: ecs } : {}),
    kubeconfigEks: kubeconfigEksLauncher(kubeconfigPods, {
      agent,
      logger,
      metrics,
      keepLog: podLogKeeper(logger, aws.s3Client),
    }),
    kubeconfigPodApis: kubeconfigPods,
    users,
    ended: options.ended,
    requestPricing: options.requestPricing,
    // Its local sessions' records say so: only this process can stop their browsers (session-ownership.ts).
    head: randomBytes(8).toString('hex'),
  });
  const knownHostsOnly = options.knownHostsOnly ?? true;
  const requests = options.requests ?? newRequestCounter(deps.clock.now());
  const app = createApp(deps, {
    agent,
    webSockets: options.webSockets ?? true,
    metricsPage: options.metricsPage ?? prometheus,
    knownHostsOnly,
    requests,
  });
  const { socketPath } = options;
  const serveApp = lazyAppListener(socketPath ? relayedRequests(app.fetch) : app.fetch, logger);
  // On its port the server takes commands on the Node-native path; on the primary's socket come only
  // the requests its workers relay, which serve commands themselves.
  const server = createServer(
    requestArrivalOptions(config.timeouts.request),
    socketPath ? serveApp : commandFastPath(deps, agent, { counter: requests, app: serveApp }),
  );
  limitRequestArrival(server, () => deps.config.timeouts.request, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (socketPath) server.listen(socketPath, resolve);
    else server.listen(config.port, config.host, resolve);
  });
  if (!socketPath) {
    attachWebSocketProxy(server, deps, {
      knownHostsOnly,
      ...(config.playwrightCache ? { playwrightCache: config.playwrightCache } : {}),
    });
  }
  answerClientErrors(server);
  const staleSlotGraceMs = options.staleSlotGraceMs ?? STALE_SLOT_GRACE_MS;
  // Which sessions this head's sweeps and shutdown end (with a shared store, not other heads' local ones).
  const { startedHere, mine, gone } = headSessions(deps, {
    shared,
    isRunning: (handle) => launcher.isRunning(handle) || containers.launcher.isRunning(handle),
    staleSlotGraceMs,
  });
  const sweepMs = options.sweepMs ?? (shared ? SHARED_EXPIRY_SWEEP_MS : EXPIRY_SWEEP_MS);
  const sweeps = [
    runEvery('expiry sweep', sweepMs, () => expireSessions(deps, { mine, gone }), logger),
    // A head that died between taking a slot and recording its session (or a release the store refused)
    // would keep the slot for good: whichever head sweeps first frees it.
    runEvery('stale-slot sweep', sweepMs, () => freeStaleSlots(deps, staleSlotGraceMs), logger),
  ];
  // A container whose session another head ended (the record only: the container is this head's) goes soon.
  if (shared)
    sweeps.push(
      runEvery(
        'sessions ended elsewhere',
        sweepMs,
        () => stopBrowsersEndedElsewhere(deps, containers.launcher.sessions()),
        logger,
      ),
    );
  sweeps.push(...local.runPeriodically(), ...containers.runPeriodically());
  const reloader = new ConfigReloader(deps, options.configPath, {
    pollMs: options.reloadPollMs,
    fingerprint: options.configFingerprint,
    deployment: options.deployment,
    onReloaded: options.onReloaded,
  });
  // With workers, they listen on the port, and the primary says the server started once they do.
  const port = socketPath ? 0 : (server.address() as AddressInfo).port;
  const host = localUrlHost(config.host);
  if (!socketPath) {
    logger.log('SERVER_STARTED', {
      url: `http://${host}:${port}`,
      version: deps.version,
      reach: reachNotice(config),
    });
  }

  let closing: Promise<void> | undefined;
  deps.stopping = () => closing !== undefined;
  const close = () => {
    closing ??= (async () => {
      // Queued requests wake up, see the server stopping and give their slots back.
      deps.queue.notify();
      // A store that is down must not stop the shutdown: the browsers this process runs still stop.
      const running = await sessions.running().catch(() => undefined);
      logger.log('SERVER_STOPPING', { sessions: running?.length ?? null });
      for (const sweep of sweeps) sweep.stop();
      reloader.close();
      await users?.close();
      const closed = new Promise((resolve) => server.close(resolve));
      // With a shared store, sessions in ecs and hub pools outlive this router: others serve them.
      await endAllSessions(deps, 'server shutdown', shared ? startedHere : () => true).catch(
        (error: unknown) => logger.log('BACKGROUND_TASK_FAILED', { task: 'shutdown', error: String(error) }),
      );
      // Sessions still being created too, and warm browsers and containers.
      await Promise.all([launcher.stopAll(), containers.launcher.stopAll()]);
      server.closeAllConnections();
      await closed;
      await agent.close();
      logger.log('SERVER_STOPPED');
    })();
    return closing;
  };
  const reload = (trigger: ReloadTrigger = 'SIGHUP') => reloader.reload(trigger);
  return { url: `http://${host}:${port}`, port, deps, launcher, reload, close };
}

/** The pod API of eks pools that name a kubeconfig: the Kubernetes client loads with the first call. */
function kubeconfigPodApisOnFirstUse(): () => Promise<(pool: EksPoolConfig) => EksPodApi> {
  return madeOnFirstUse(async () => (await import('../pools/eks/eks-kubeconfig')).kubeconfigPodApis());
}

/** The launcher of eks pools that name a kubeconfig: loaded with such a pool's first pod. */
function kubeconfigEksLauncher(
  podApis: () => Promise<(pool: EksPoolConfig) => EksPodApi>,
  context: { agent: Dispatcher; logger: Logger; metrics: Metrics; keepLog: KeepPodLog },
): Launcher {
  return onFirstUse(async () => {
    const [{ EksLauncher }, podApi] = await Promise.all([import('../pools/eks/eks-launcher'), podApis()]);
    return new EksLauncher({ podApi, ...context });
  });
}

/** The host part of a URL that reaches a server listening on `host` from this machine. */
export function localUrlHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
