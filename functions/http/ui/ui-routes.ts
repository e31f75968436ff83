/**
 * The status page for people (GET /ui, and GET / when a browser asks for HTML) and the JSON it polls.
 * Auth is the grid's: the app's middleware has already named the user (Basic auth, or the guest).
 */
import type { Context, Hono } from 'hono';
import type { Dispatcher } from 'undici';
import { WebDriverError } from '../../core/errors';
import type { GridDeps } from '../../core/grid-deps';
import { recentFailures } from './recent-failures';
import { endFromPage, takeScreenshot } from './ui-browser';
import { overview, pageHeader, sessionDetail, visibleSession } from './ui-data';
import { markFromPage } from './ui-marks';
import { statusPage, UI_SECURITY_HEADERS } from './ui-page';
import { endedSessionRecordings, registerRecordingRoutes } from './ui-recordings';
import { UI_RECORDINGS_SCRIPT } from './ui-recordings-script';
import { UI_SCRIPT } from './ui-script';
import { UI_STYLE } from './ui-style';
import type { Viewer } from './ui-views';
import { requireVncTarget, vncFile, vncTarget } from './ui-vnc';

type UiEnv = { Variables: { user: string } };

export interface UiOptions {
  /** Users who see and may end every user's sessions; asked at each request, so a reloaded config can change them. */
  admins: () => readonly string[];
  /** The app's HTTP client for browsers. */
  agent: Dispatcher;
  /** When the app started, for the uptime shown. */
  startedAt: number;
  /**
   * Whether this server carries WebSockets (a Node server; not behind Lambda), which the live VNC view
   * needs; without, the session page shows screenshots. Default false.
   */
  webSockets?: boolean;
}

const SESSION_API = '/ui/api/sessions/:key';
/** Where a session's noVNC page and files are served; its WebSocket is ".../vnc/websockify" (node/websocket-proxy.ts). */
export const VNC_PREFIX = `${SESSION_API}/vnc`;

export function registerUiRoutes(app: Hono<UiEnv>, deps: GridDeps, options: UiOptions): void {
  const failures = recentFailures(deps);
  const viewer = (c: Context<UiEnv>): Viewer => {
    const user = c.get('user');
    return { user, admin: options.admins().includes(user) };
  };

  const page = (c: Context<UiEnv>) => {
    // "Sign in": the guest gets a Basic challenge, so the browser asks for a name and password.
    if (c.req.query('signin') !== undefined && deps.users && c.get('user') === deps.config.guest) {
      throw new WebDriverError('invalid argument', 'sign in to see your sessions', {
        status: 401,
        headers: { 'WWW-Authenticate': 'Basic realm="gridgate"' },
      });
    }
    const view = c.req.query('session') !== undefined ? 'session' : 'overview';
    return c.html(statusPage({ view, canSignIn: deps.users !== undefined }), 200, UI_SECURITY_HEADERS);
  };

  app.get('/ui', page);
  // WebDriver clients never GET the root; a person's browser does, and asks for HTML.
  app.get('/', (c, next) => (acceptsHtml(c.req.header('accept')) ? page(c) : next()));
  app.get('/ui/app.js', (c) =>
    c.body(UI_SCRIPT, 200, {
      ...UI_SECURITY_HEADERS,
      'content-type': 'text/javascript; charset=utf-8',
    }),
  );
  app.get('/ui/recordings.js', (c) =>
    c.body(UI_RECORDINGS_SCRIPT, 200, {
      ...UI_SECURITY_HEADERS,
      'content-type': 'text/javascript; charset=utf-8',
    }),
  );
  registerRecordingRoutes(app, deps, viewer);
  app.get('/ui/style.css', (c) =>
    c.body(UI_STYLE, 200, { ...UI_SECURITY_HEADERS, 'content-type': 'text/css; charset=utf-8' }),
  );

  app.get('/ui/api/overview', async (c) =>
    c.json(await overview(deps, viewer(c), options.startedAt, failures), 200, UI_SECURITY_HEADERS),
  );
  app.get(SESSION_API, async (c) => {
    const who = viewer(c);
    const record = await visibleSession(deps, who, c.req.param('key'));
    const header = pageHeader(deps, who, options.startedAt);
    const vnc = vncTarget(deps, record, options.webSockets ?? false);
    const detail = sessionDetail(deps, record, header.now, vnc && { password: vnc.password });
    // An ended session's files, linked from its page as from the recordings list.
    const recordings = record.endedAt === undefined ? undefined : await endedSessionRecordings(deps, record);
    const session = recordings ? { ...detail, recordings } : detail;
    return c.json({ ...header, session }, 200, UI_SECURITY_HEADERS);
  });
  // The same checks as the session's page (owner or admin, a running session), then the browser's noVNC.
  app.get(`${VNC_PREFIX}/*`, async (c) => {
    const record = await visibleSession(deps, viewer(c), c.req.param('key'));
    const target = requireVncTarget(deps, record, options.webSockets ?? false);
    const file = c.req.path.slice(`/ui/api/sessions/${record.key}/vnc`.length);
    return vncFile(options.agent, target, file, new URL(c.req.url).search, record);
  });
  app.get(`${SESSION_API}/screenshot`, async (c) => {
    const record = await visibleSession(deps, viewer(c), c.req.param('key'));
    const png = await takeScreenshot(deps, options.agent, record);
    return c.body(new Uint8Array(png), 200, { ...UI_SECURITY_HEADERS, 'content-type': 'image/png' });
  });
  // As DELETE below: a JSON PUT from another site's page needs a CORS preflight nobody answers.
  app.put(SESSION_API, (c) => markFromPage(c, deps, viewer(c), c.req.param('key')));
  // DELETE, never a GET or a form POST: another site's page cannot send one without a CORS preflight,
  // which gridgate does not answer, so a signed-in admin's browser cannot be tricked into ending sessions.
  app.delete(SESSION_API, async (c) => {
    const record = await visibleSession(deps, viewer(c), c.req.param('key'));
    await endFromPage(deps, options.agent, record);
    return c.json({ value: null }, 200, UI_SECURITY_HEADERS);
  });

  for (const path of [
    '/ui',
    '/ui/app.js',
    '/ui/recordings.js',
    '/ui/style.css',
    '/ui/api/overview',
    `${SESSION_API}/screenshot`,
    `${VNC_PREFIX}/*`,
  ]) {
    app.all(path, unknownMethod);
  }
  app.all(SESSION_API, unknownMethod);
}

function unknownMethod(c: Context): never {
  throw new WebDriverError('unknown method', `${c.req.method} is not allowed on ${c.req.path}`);
}

/** Whether the Accept header names HTML (browsers send text/html first; WebDriver clients send JSON or nothing). */
export function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? '')
    .split(',')
    .some((part) => part.trim().split(';')[0]?.trim().toLowerCase() === 'text/html');
}
