/** createApp(deps): the one Hono app the Node server and the Lambda handler both serve (DESIGN invariant 7). */

import { type Context, Hono } from 'hono';
import type { Dispatcher } from 'undici';
import { isHubOrigin } from '../core/browser-network';
import { invalidSessionId, WebDriverError } from '../core/errors';
import { type GridDeps, runtimeOf, sessionPool } from '../core/grid-deps';
import { endSession } from '../use-cases/end-session';
import { clientResponseHeaders, createUpstreamAgent } from '../webdriver-client/upstream-client';
import { registerArtifactRoutes } from './artifact-routes';
import { clientAddress } from './client-address';
import { DEVTOOLS_VERSION_PATHS, devtoolsVersion } from './devtools-version';
import { errorAnswer } from './error-answer';
import {
  deleteDownloadedFiles,
  downloadFile,
  type FileTransferHandler,
  listDownloadedFiles,
  uploadFile,
} from './file-transfer';
import { forwardCommand, sessionEndpoint, translateUpstreamError } from './forward-command';
import { gridPing, gridStatus, newRequestCounter, type RequestCounter } from './grid-info';
import { passToHub, SELENOID_PREFIXES, selenoidRequest } from './hub-passthrough';
import { newSessionRoute } from './new-session';
import { userQuota } from './quota';
import { requestUser, requireUserDirectory } from './request-user';
import { commandWait, waitSignal } from './runtime-limits';
import { sessionEvent } from './test-marks-commands';
import { registerUiRoutes } from './ui/ui-routes';
import { verifySession, verifySessionToDelete } from './verify-session';
import { crossSiteRefusal, nonJsonRefusal, originPolicy, signalsOf } from './web-page-requests';
import { webDriverJson } from './webdriver-json';

export interface AppOptions {
  /** The HTTP client for browsers; one per process. */
  agent?: Dispatcher;
  /**
   * Whether clients can open WebSockets to gridgate (default true). False behind Lambda, which cannot
   * carry them: new sessions then answer without webSocketUrl and se:cdp.
   */
  webSockets?: boolean;
  /** Users who see every user's sessions on the status page and may end them (default: the config's `admins`). */
  admins?: readonly string[];
  /**
   * Browsers must name the grid by a name it knows: localhost, an IP address, publicUrl's host or one of
   * `allowedHosts` (no DNS rebinding; see web-page-requests.ts). Default true; false only behind a front
   * door that answers its own names alone, over TLS (API Gateway, a function URL).
   */
  knownHostsOnly?: boolean;
  /** What `GET /metrics` answers, without credentials like /status (the Node server's Prometheus text); none: no such path. */
  metricsPage?: MetricsPage;
  /**
   * What /ping counts, when this app is one of several that serve the same grid (a server's worker
   * processes and its primary); by default the app counts for itself.
   */
  requests?: RequestCounter;
}

export interface MetricsPage {
  contentType: string;
  scrape(): Promise<string>;
}

type Env = { Variables: { user: string } };

// WebDriver clients use either root; Selenium 3 and ggr users expect /wd/hub.
export const BASE_PATHS = ['', '/wd/hub'] as const;

// Where Prometheus looks by default; a scraper has no WebDriver base path.
const METRICS_PATH = '/metrics';
const PUBLIC_PATHS = new Set(BASE_PATHS.flatMap((base) => [`${base}/status`, `${base}/ping`]));

export function createApp(deps: GridDeps, options: AppOptions = {}) {
  requireUserDirectory(deps);
  const agent = options.agent ?? createUpstreamAgent((origin) => isHubOrigin(deps.config.pools, origin));
  const newSessionMode = { webSockets: options.webSockets ?? true };
  const counter: RequestCounter = options.requests ?? newRequestCounter(deps.clock.now());
  const app = new Hono<Env>();

  app.use(async (c, next) => {
    // Health checks (load balancers, ggr's /ping) work without credentials, as in ggr.
    const open = PUBLIC_PATHS.has(c.req.path) || (options.metricsPage && c.req.path === METRICS_PATH);
    // As ggr's numRequests: what clients ask of the grid, not health checks (an unknown path is taken back).
    if (!open) counter.requests++;
    if (!open) {
      const signals = signalsOf(c.req.method, new URL(c.req.url), (name) => c.req.header(name));
      // Before the password check: another site's page gets nothing, not even a bcrypt round.
      const crossSite = crossSiteRefusal(signals, originPolicy(deps.config, options.knownHostsOnly ?? true));
      if (crossSite) throw crossSite;
      c.set('user', await requestUser(deps, c.req.header('authorization'), clientAddress(c.env)));
      const notJson = nonJsonRefusal(signals);
      if (notJson) throw notJson;
    }
    await next();
  });

  for (const base of BASE_PATHS) {
    app.post(`${base}/session`, async (c) => {
      const created = await newSessionRoute(c, deps, agent, base, newSessionMode);
      counter.sessions++; // a refusal throws: ggr's numSessions counts sessions created
      return created;
    });
    app.delete(`${base}/session/:id`, async (c) => {
      const claims = await verifySessionToDelete(deps, c.req.param('id'), c.get('user'));
      const pool = sessionPool(deps, claims);
      if (pool && runtimeOf(deps, pool)?.ending?.stopEndsSession(claims.handle)) {
        // Stopping the browser is the whole end here (core/pool-runtime.ts StopEndsSession).
        await endSession(deps, claims, 'deleted');
        return webDriverJson(c, { value: null });
      }
      // Under a runtime's limits (Lambda) the browser's answer is awaited only while there is time to
      // give one; a browser that cannot say goodbye in time is stopped all the same.
      const wait = commandWait(c.env, Date.now());
      const bounded = wait && waitSignal(wait, c.req.raw.signal);
      let response: Dispatcher.ResponseData;
      try {
        const endpoint = sessionEndpoint(deps, claims);
        response = await agent.request({
          origin: endpoint.origin,
          path: `${endpoint.basePath}/session/${claims.upstreamId}`,
          method: 'DELETE',
          headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
          ...(bounded ? { signal: bounded.signal } : {}),
        });
      } catch (error) {
        if (bounded?.signal.aborted && !c.req.raw.signal.aborted) await endSession(deps, claims, 'deleted');
        throw await translateUpstreamError(deps, claims, error);
      } finally {
        bounded?.answered();
      }
      // As bytes: the browser's Content-Length and encoding pass through with them.
      const body = await response.body.arrayBuffer();
      // Stopping the browser before answering means none of its processes runs once the client hears back
      // (a local one's folders go right after: the launcher's shutdown waits for them).
      await endSession(deps, claims, 'deleted');
      return c.body(body, response.statusCode as 200, clientResponseHeaders(response.headers));
    });
    // Selenium Grid 4's file transfer: answered here where the launcher serves it (local), else proxied.
    const files = `${base}/session/:id/se/files`;
    app.post(`${base}/session/:id/se/file`, (c) => transfer(c, base, '/se/file', uploadFile));
    app.get(files, (c) => transfer(c, base, '/se/files', listDownloadedFiles));
    app.post(files, (c) => transfer(c, base, '/se/files', downloadFile));
    app.delete(files, (c) => transfer(c, base, '/se/files', deleteDownloadedFiles));
    // Selenium Grid 4.41's session events: answered here, whatever the pool (test-marks-commands.ts).
    app.post(`${base}/session/:id/se/event`, (c) => sessionEvent(c, deps, claimsOf(c)));
    app.all(`${base}/session/:id/*`, (c) => proxy(c, base));
    app.all(`${base}/session/:id`, (c) => proxy(c, base));
    app.get(`${base}/status`, async (c) => webDriverJson(c, await gridStatus(deps)));
    app.get(`${base}/ping`, async (c) => webDriverJson(c, await gridPing(deps, counter)));
    app.get(`${base}/host/:id`, async (c) => {
      const claims = verifySession(deps, c.req.param('id'), c.get('user'));
      const pool = sessionPool(deps, claims);
      // The colour asked for: a session that fell back to the baseline has one its pool lacks.
      const color = (await deps.sessions.get(claims.key))?.color;
      return webDriverJson(c, {
        value: {
          pool: claims.pool,
          kind: pool?.kind,
          address: claims.address,
          browserSessionId: claims.upstreamId,
          createdAt: new Date(claims.createdAt).toISOString(),
          ...(color ? { color } : {}),
        },
      });
    });
    app.get(`${base}/quota`, (c) => webDriverJson(c, { value: userQuota(deps.config, c.get('user')) }));
    for (const path of ['/session', '/status', '/ping', '/host/:id', '/quota']) {
      app.all(`${base}${path}`, (c) => {
        throw new WebDriverError('unknown method', `${c.req.method} is not allowed on ${c.req.path}`);
      });
    }
  }

  // Read per request, so a config reload changes who is an admin.
  const admins = () => options.admins ?? deps.config.admins;
  // Selenoid's /video/ and /logs/, at the root only, as Selenoid and ggr serve them: the recordings gridgate
  // keeps itself; a session whose pool kind has none here goes on to the routes registered after these.
  registerArtifactRoutes(app, deps, admins);
  // Before Selenoid's /devtools/{id}/…: a CDP client's HTTP address, where WebSockets reach the server.
  if (newSessionMode.webSockets) {
    for (const path of DEVTOOLS_VERSION_PATHS)
      app.get(path, (c) => devtoolsVersion(c, deps.config.publicUrl));
  }
  // Selenoid's other paths, at the root only, as Selenoid and ggr serve them.
  for (const prefix of SELENOID_PREFIXES) {
    app.all(`${prefix}/*`, (c) =>
      passToHub(c, deps, agent, selenoidRequest(deps, new URL(c.req.url).pathname, c.get('user'))),
    );
  }

  function claimsOf(c: Context<Env>) {
    const id = c.req.param('id');
    if (!id) throw invalidSessionId('no session ID in the path');
    return verifySession(deps, id, c.get('user'));
  }

  function proxy(c: Context<Env>, base: string, claims = claimsOf(c)) {
    const prefix = `${base}/session/${c.req.param('id')}`;
    const url = new URL(c.req.url);
    return forwardCommand(c, deps, agent, {
      claims,
      rest: url.pathname.slice(prefix.length),
      search: url.search,
    });
  }

  const { metricsPage } = options;
  if (metricsPage) {
    app.get(METRICS_PATH, async (c) =>
      c.body(await metricsPage.scrape(), 200, { 'content-type': metricsPage.contentType }),
    );
  }

  function transfer(c: Context<Env>, base: string, path: string, handler: FileTransferHandler) {
    const claims = claimsOf(c);
    const pool = sessionPool(deps, claims);
    const files = pool && runtimeOf(deps, pool)?.files;
    if (!files) return proxy(c, base, claims);
    deps.sessions.touch(claims.key, deps.clock.now(), c.req.method, path);
    const { maxBodySize, maxUploadSize } = deps.config.limits;
    return handler(c, { files, handle: claims.handle, maxBodySize, maxUploadSize });
  }

  registerUiRoutes(app, deps, {
    admins,
    agent,
    startedAt: counter.startedAt,
    webSockets: newSessionMode.webSockets,
  });

  app.notFound((c) => {
    // ggr counts none of the requests its router has no route for.
    counter.requests--;
    throw new WebDriverError('unknown command', `unknown command: ${c.req.method} ${c.req.path}`);
  });

  app.onError((error, c) => {
    // A client that left mid-request (its body cut off) is an everyday event, not a failure of gridgate's;
    // nobody is left to answer.
    if (!(error instanceof WebDriverError) && clientLeft(error, c.req.raw)) {
      deps.logger.log('CLIENT_GONE', { method: c.req.method, path: c.req.path });
      return c.body(null, 400);
    }
    const request = { method: c.req.method, path: c.req.path, accept: c.req.header('accept') };
    const answer = errorAnswer(error, request, deps.logger);
    return webDriverJson(c, answer.body, answer.status as 500, answer.headers);
  });

  return app;
}

/**
 * Whether the error is the client's going away: the request's signal aborted (the Node adapter aborts it
 * when the connection closes first), or the body's stream failing as Node fails it then ("aborted",
 * ECONNRESET), which can come before the signal.
 */
function clientLeft(error: Error, request: Request): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return request.signal.aborted || (code === 'ECONNRESET' && error.message === 'aborted');
}
