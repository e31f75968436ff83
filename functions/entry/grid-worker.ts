/**
 * One worker process of a Node server with workers (grid-primary.ts): it listens on the server's port
 * and serves session commands and their WebSockets itself, as any head can (the signed session ID says
 * where the browser is), and relays every other request to the primary, which holds the grid. Its store is
 * the primary's (one slot ledger), reached over the IPC channel, with activity sent in batches.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ToPrimary, ToWorker } from '../adapters/cluster/cluster-messages';
import { PrimaryCalls } from '../adapters/cluster/primary-calls';
import { PrimaryLauncher } from '../adapters/cluster/primary-launcher';
import { PrimaryPasswordChecks } from '../adapters/cluster/primary-password-checks';
import { ACTIVITY_BATCH_MS, PrimarySessionStore } from '../adapters/cluster/primary-session-store';
import { HtpasswdUserDirectory } from '../adapters/htpasswd/htpasswd-user-directory';
import { PrometheusMetrics } from '../adapters/prometheus/prometheus-metrics';
import { isHubOrigin } from '../core/browser-network';
import { EndedSessions } from '../core/ended-sessions';
import { type Logger, systemClock } from '../core/ports';
import { adoptConfigState } from '../core/swap-config';
import type { RequestCounter } from '../http/grid-info';
import { requireUserDirectory } from '../http/request-user';
import { POOL_KINDS } from '../pools';
import { lazyAppListener } from '../servers/node/app-listener';
import { answerClientErrors } from '../servers/node/client-errors';
import { commandFastPath } from '../servers/node/command-fast-path';
import { PrimaryRelay } from '../servers/node/primary-relay';
import { limitRequestArrival, requestArrivalOptions } from '../servers/node/request-arrival';
import { attachWebSocketProxy } from '../servers/node/websocket-proxy';
import { createUpstreamAgent } from '../webdriver-client/upstream-client';
import { gridDeps } from './grid-wiring';

type Setup = Extract<ToWorker, { type: 'setup' }>;

// Commands of a session, served here; the session itself (DELETE), new sessions and file transfers,
// which a local launcher answers, go to the primary with everything else.
const COMMAND_PATH = /^(?:\/wd\/hub)?\/session\/[^/?#]+\/[^?#]/;
const PRIMARY_COMMANDS = /\/se\/files?(?:[?#]|$)/;

/** Whether this worker serves the request itself (else the primary does). */
export function servedByWorker(url: string): boolean {
  return COMMAND_PATH.test(url) && !PRIMARY_COMMANDS.test(url);
}

export async function runWorker(logger: Logger): Promise<void> {
  const send = (message: ToPrimary) => process.send?.(message, undefined, {}, () => {});
  const calls = new PrimaryCalls(send);
  // Until the setup came, there is nothing to apply a message to (a broadcast may come that early).
  let onMessage: ((message: ToWorker) => void) | undefined;
  const setup = await new Promise<Setup>((resolve) => {
    process.on('message', (message: ToWorker) => {
      if (message.type === 'setup') resolve(message);
      else onMessage?.(message);
    });
    send({ type: 'ready' });
  });
  // The primary decides when the server stops or reloads: a signal to the whole process group (Ctrl-C,
  // a terminal hang-up) must not end or reload a worker on its own. Without the primary, a worker ends.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
  process.on('disconnect', () => {
    calls.close();
    process.exit(0);
  });

  const { config } = setup.state;
  const sessions = new PrimarySessionStore(calls);
  // Each worker reads the same file and remembers answers itself; the primary makes every check (bcrypt,
  // the costly part, on its threads), so one client's checks under way are bounded once, not per worker.
  const users = config.usersFile
    ? HtpasswdUserDirectory.open(config.usersFile, {
        clock: systemClock,
        logger,
        checks: new PrimaryPasswordChecks(calls),
      })
    : undefined;
  // Read when a hub is first reached, so a hub a reload adds gets a hub's connections too.
  const agent = createUpstreamAgent((origin) => isHubOrigin(deps.config.pools, origin));
  const metrics = new PrometheusMetrics({ logger });
  const deps = await gridDeps({
    config,
    secret: Buffer.from(setup.secret, 'base64'),
    logger,
    metrics,
    sessions,
    agent,
    // The primary's kinds, each asked of the primary, which starts and stops every browser.
    kinds: new Set(setup.launcherKinds),
    // What a kind's runtime serves here without the primary, where the primary's has it: a local session's
    // folder, named after the primary's pid, and its browser's network (PoolKind.servedByWorkers).
    launchedElsewhere: (kind) => {
      const { hostPaths, network } = POOL_KINDS[kind].servedByWorkers?.(setup.sessionOwner) ?? {};
      return {
        launcher: new PrimaryLauncher(calls, kind),
        ...(hostPaths && setup.hostPathKinds.includes(kind) ? { hostPaths } : {}),
        ...(network && setup.networkKinds.includes(kind) ? { network } : {}),
      };
    },
    users,
    ended: new EndedSessions(undefined, (key, session) => send({ type: 'ended', key, session })),
  });
  adoptConfigState(deps, setup.state);
  for (const [key, session] of setup.ended) deps.ended.heard(key, session);

  onMessage = (message) => {
    switch (message.type) {
      case 'config':
        return adoptConfigState(deps, message.state);
      case 'ended':
        return deps.ended.heard(message.key, message.session);
      case 'reply':
        return calls.settle(message);
      case 'metrics':
        return void metrics
          .snapshot()
          .then((snapshot) => send({ type: 'metrics', id: message.id, snapshot }));
      case 'stop':
        return stop();
    }
  };

  const requests: RequestCounter = { startedAt: Date.now(), requests: 0, sessions: 0 };
  requireUserDirectory(deps);
  // Made at the first request the app serves (app-listener.ts): an idle worker never loads it.
  const serveHere = lazyAppListener(
    () => import('../http/create-app').then(({ createApp }) => createApp(deps, { agent, requests }).fetch),
    logger,
  );
  const relay = new PrimaryRelay(setup.socketPath);
  // Commands take the Node-native path; those it leaves, and everything else, go where they went before.
  const others = (req: IncomingMessage, res: ServerResponse) => {
    if (servedByWorker(req.url ?? '/')) serveHere(req, res);
    else relay.pass(req, res);
  };
  const server = createServer(
    requestArrivalOptions(config.timeouts.request),
    commandFastPath(deps, agent, { counter: requests, app: others }),
  );
  limitRequestArrival(server, () => deps.config.timeouts.request, logger);
  attachWebSocketProxy(server, deps, {
    ...(config.playwrightCache ? { playwrightCache: config.playwrightCache } : {}),
    // The servers of sockets served here are the grid's: marked with the primary's pid, as its folders are.
    gridPid: setup.sessionOwner,
  });
  answerClientErrors(server);

  // Activity and the requests served here reach the primary in batches, never one message per command.
  let reported = 0;
  const batches = setInterval(() => {
    const touches = sessions.takeActivity();
    const served = requests.requests - reported;
    reported = requests.requests;
    if (touches.length > 0 || served !== 0) send({ type: 'activity', touches, requests: served });
  }, ACTIVITY_BATCH_MS);
  batches.unref();

  function stop(): void {
    clearInterval(batches);
    server.close();
    server.closeAllConnections();
    const exit = () => process.exit(0);
    Promise.allSettled([relay.close(), agent.close(), users?.close()]).then(exit, exit);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
}
