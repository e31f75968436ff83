/**
 * POST /session over HTTP: the request read into a plain record for the createSession use case
 * (use-cases/create-session.ts), and its session answered in the client's protocol, the WebSocket URLs
 * pointing at gridgate.
 */

import type { Context } from 'hono';
import type { Dispatcher } from 'undici';
import type { GridDeps } from '../core/grid-deps';
import { createSession, type NewSession } from '../use-cases/create-session';
import { upstreamWebDriver } from '../webdriver-client/upstream-new-session';
import { publicWebSocketBase, rewriteWebSocketCapabilities, withoutWebSockets } from './public-url';
import { readText } from './request-body';
import { requestDeadline } from './runtime-limits';
import { webDriverJson } from './webdriver-json';

export interface NewSessionOptions {
  /** Whether clients can reach gridgate over WebSockets; not behind Lambda, so no WebSocket URLs then. */
  webSockets: boolean;
}

export async function newSessionRoute(
  c: Context,
  deps: GridDeps,
  agent: Dispatcher,
  basePath: string,
  mode: NewSessionOptions = { webSockets: true },
) {
  const deadline = requestDeadline(c.env);
  const created = await createSession(deps, upstreamWebDriver(agent), {
    user: c.get('user') as string,
    body: await readText(c.req.raw, deps.config.limits.maxBodySize),
    colorHeader: c.req.header(deps.config.colors.header),
    host: clientHost(c.req.raw),
    signal: c.req.raw.signal,
    ...(deadline ? { deadline } : {}),
  });
  return answer(c, deps, basePath, created, mode);
}

/** The host the client addressed, for a colour in its subdomain: behind a proxy, what the proxy was asked. */
function clientHost(request: Request): string | undefined {
  const forwarded = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  return forwarded || request.headers.get('host') || new URL(request.url).host;
}

/** The answer, its WebSocket URLs pointing at gridgate; JSON Wire clients read the ID at the top level. */
function answer(
  c: Context,
  deps: GridDeps,
  basePath: string,
  { protocol, session, platformName }: NewSession,
  mode: NewSessionOptions,
) {
  const sessionId = session.sessionId;
  // chromedriver attached to a pre-started Chromium answers an empty platformName; the catalog's is true.
  const reported = session.capabilities.platformName
    ? session.capabilities
    : { ...session.capabilities, platformName };
  const capabilities = mode.webSockets
    ? rewriteWebSocketCapabilities(reported, {
        base: publicWebSocketBase(c.req.raw, basePath, deps.config.publicUrl),
        token: sessionId,
      })
    : withoutWebSockets(reported);
  const value = { ...session, capabilities };
  return webDriverJson(c, protocol === 'jsonwire' ? { sessionId, status: 0, value } : { value });
}
