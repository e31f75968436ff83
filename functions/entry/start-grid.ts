/**
 * Wires the Node server: the store the config names (in memory, or a DynamoDB table shared with other
 * routers), what its pools run on (node-server-pools.ts), given to the one wiring (grid-wiring.ts); then the
 * app, the HTTP server and its WebSocket proxy, the head's sweeps, reloads and shutdown.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { MemorySessionStore } from '../adapters/memory/memory-session-store';
import { PrometheusMetrics } from '../adapters/prometheus/prometheus-metrics';
import { isHubOrigin } from '../core/browser-network';
import type { Config } from '../core/config';
import type { EndedSessions } from '../core/ended-sessions';
import { STALE_SLOT_GRACE_MS } from '../core/free-stale-slots';
import type { GridDeps } from '../core/grid-deps';
import { reportGridGauges } from '../core/pool-gauges';
import { type Logger, type Metrics, systemClock } from '../core/ports';
import type { RequestPricing } from '../core/session-cost';
import type { MetricsPage } from '../http/create-app';
import { newRequestCounter, type RequestCounter } from '../http/grid-info';
import { requireUserDirectory } from '../http/request-user';
import type { RuntimeMakers } from '../pools';
import type { ChromedriverLauncher } from '../pools/local/chromedriver-launcher';
import { lazyAppListener } from '../servers/node/app-listener';
import { answerClientErrors } from '../servers/node/client-errors';
import { commandFastPath } from '../servers/node/command-fast-path';
import { relayedRequests } from '../servers/node/primary-relay';
import { limitRequestArrival, requestArrivalOptions } from '../servers/node/request-arrival';
import { attachWebSocketProxy } from '../servers/node/websocket-proxy';
import { endSessionOfExitedBrowser } from '../use-cases/end-exited-browser';
import { endAllSessions } from '../use-cases/expire-sessions';
import { startHeadSweeps } from '../use-cases/head-sweeps';
import { createUpstreamAgent } from '../webdriver-client/upstream-client';
import { type AwsAdapters, awsAdapters } from './aws-adapters';
import { ConfigReloader, type ReloadTrigger } from './config-reloader';
import { EVERY_POOL_KIND, gridDeps } from './grid-wiring';
import { startNodeServerPools } from './node-server-pools';
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
  /** The AWS adapters (DynamoDB store, warm tasks, credentials); tests give their own. */
  aws?: AwsAdapters;
  /** Runtime makers in place of what pool kinds' `load()` answers; tests give their fakes. */
  makers?: RuntimeMakers;
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
  const pools = await startNodeServerPools({
    config,
    current: () => deps.config,
    logger,
    metrics,
    agent,
    onUnexpectedExit: (handle, exit) => endSessionOfExitedBrowser(deps, handle, exit),
  });
  prometheus?.onScrape((into) => reportGridGauges(deps, into));
  const deps: GridDeps = await gridDeps({
    config,
    secret,
    logger,
    metrics,
    sessions,
    agent,
    aws,
    // ecs sessions' recordings where the stack keeps them, as the router Lambda reads them: a head of the
    // service or Web Function front door is given the same GRIDGATE_DEPLOYMENT and the same grants.
    deployment: options.deployment,
    makers: options.makers,
    // A reload may add a pool of any kind.
    kinds: EVERY_POOL_KIND,
    ...pools.parts,
    users,
    ended: options.ended,
    requestPricing: options.requestPricing,
    // Its local sessions' records say so: only this process can stop their browsers (session-ownership.ts).
    head: randomBytes(8).toString('hex'),
  });
  const knownHostsOnly = options.knownHostsOnly ?? true;
  const requests = options.requests ?? newRequestCounter(deps.clock.now());
  requireUserDirectory(deps);
  // Made at the first request the app serves (app-listener.ts): an idle grid never loads it.
  const loadApp = async () => {
    const { createApp } = await import('../http/create-app');
    return createApp(deps, {
      agent,
      webSockets: options.webSockets ?? true,
      metricsPage: options.metricsPage ?? prometheus,
      knownHostsOnly,
      requests,
    });
  };
  const { socketPath } = options;
  const server = await listenForClients(deps, loadApp, { agent, requests, knownHostsOnly, socketPath });
  // Which sessions this head's sweeps and shutdown end (with a shared store, not other heads' local ones).
  const { sweeps, endedAtShutdown } = startHeadSweeps(deps, {
    shared,
    isRunning: pools.isRunning,
    staleSlotGraceMs: options.staleSlotGraceMs ?? STALE_SLOT_GRACE_MS,
    sweepMs: options.sweepMs ?? (shared ? SHARED_EXPIRY_SWEEP_MS : EXPIRY_SWEEP_MS),
    browsersHere: () => pools.containers.launcher.sessions(),
  });
  sweeps.push(...pools.runPeriodically());
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
      await endAllSessions(deps, 'server shutdown', endedAtShutdown).catch((error: unknown) =>
        logger.log('BACKGROUND_TASK_FAILED', { task: 'shutdown', error: String(error) }),
      );
      // Sessions still being created too, and warm browsers and containers.
      await pools.stopAll();
      server.closeAllConnections();
      await closed;
      await agent.close();
      logger.log('SERVER_STOPPED');
    })();
    return closing;
  };
  const reload = (trigger: ReloadTrigger = 'SIGHUP') => reloader.reload(trigger);
  return { url: `http://${host}:${port}`, port, deps, launcher: pools.local.launcher, reload, close };
}

/**
 * The HTTP server, listening: on its port it takes commands on the Node-native path and WebSockets; on the
 * primary's socket come only the requests its workers relay, which serve commands themselves.
 */
async function listenForClients(
  deps: GridDeps,
  loadApp: () => Promise<{ fetch: (request: Request) => Response | Promise<Response> }>,
  options: { agent: Dispatcher; requests: RequestCounter; knownHostsOnly: boolean; socketPath?: string },
): Promise<Server> {
  const { config, logger } = deps;
  const { socketPath } = options;
  const serveApp = lazyAppListener(
    () => loadApp().then((app) => (socketPath ? relayedRequests(app.fetch) : app.fetch)),
    logger,
  );
  const server = createServer(
    requestArrivalOptions(config.timeouts.request),
    socketPath
      ? serveApp
      : commandFastPath(deps, options.agent, { counter: options.requests, app: serveApp }),
  );
  limitRequestArrival(server, () => deps.config.timeouts.request, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (socketPath) server.listen(socketPath, resolve);
    else server.listen(config.port, config.host, resolve);
  });
  if (!socketPath) {
    attachWebSocketProxy(server, deps, {
      knownHostsOnly: options.knownHostsOnly,
      ...(config.playwrightCache ? { playwrightCache: config.playwrightCache } : {}),
    });
  }
  answerClientErrors(server);
  return server;
}

/** The host part of a URL that reaches a server listening on `host` from this machine. */
export function localUrlHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
