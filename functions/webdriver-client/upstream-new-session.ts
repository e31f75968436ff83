/**
 * The WebDriver new-session exchange with a browser or hub, on the wire: the request (W3C capabilities,
 * the headers hubs need), the answer read in each shape browsers and hubs give it (W3C, JSON Wire, a bare
 * redirect, any content encoding), and what went wrong mapped to gridgate's errors. Implements the
 * UpstreamWebDriver port (core/upstream-webdriver.ts) over undici, with the colour header (color-header.ts).
 */

import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { isObject } from '../core/capabilities';
import { invalidArgument, WebDriverError } from '../core/errors';
import { LaunchFailure } from '../core/host-choice';
import type { UpstreamEndpoint } from '../core/upstream-endpoint';
import type { CreatedSession, UpstreamNewSession, UpstreamWebDriver } from '../core/upstream-webdriver';
import { sendColorHeader } from './color-header';

/** The port over one HTTP client (the app's agent for browsers and hubs). */
export function upstreamWebDriver(agent: Dispatcher): UpstreamWebDriver {
  return {
    newSession: (request) => requestNewSession(agent, request),
    sendColorHeader: (target, header, color, signal) => sendColorHeader(agent, target, header, color, signal),
  };
}

// A stray session found in a malformed answer gets this long to be deleted.
const STRAY_DELETE_MS = 5000;

/**
 * POSTs the new-session request to the browser or hub and reads its answer (W3C §8.1 New Session; a
 * JSON Wire hub's, as ggr accepts them), mapping what went wrong as UpstreamWebDriver.newSession says.
 */
export async function requestNewSession(
  agent: Dispatcher,
  { endpoint, capabilities, hub, noWait, signal }: UpstreamNewSession,
): Promise<CreatedSession> {
  const headers: Record<string, string> = {
    // Selenium Grid 4 refuses a new-session request without the charset (ggr #355).
    'content-type': 'application/json; charset=utf-8',
    // Hubs behind proxies answered gzip that nobody decoded (ggr #294): ask for none, decode anyway.
    'accept-encoding': 'identity',
  };
  // Selenoid answers 429 at once to a request with this header (any value) when it is full; other hubs
  // ignore it. Empty, as ggr sends it.
  if (noWait) headers['x-selenoid-no-wait'] = '';
  if (endpoint.authorization) headers.authorization = endpoint.authorization;
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await agent.request({
      origin: endpoint.origin,
      path: `${endpoint.basePath}/session`,
      method: 'POST',
      headers,
      body: JSON.stringify({ capabilities: { alwaysMatch: capabilities, firstMatch: [{}] } }),
      signal,
    });
    text = decode(Buffer.from(await response.body.arrayBuffer()), response.headers['content-encoding']);
  } catch (error) {
    // What undici says names the upstream's address inside the grid's network: it stays in the cause, for the log.
    throw new LaunchFailure('unreachable', `the ${hub ? 'hub' : 'browser'} could not be reached`, '', {
      cause: error,
    });
  }
  // Old hubs may answer with only a redirect to the new session (as ggr accepts).
  const located = hub ? locatedSession(response) : undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (located) return located;
    throw new LaunchFailure(
      'unreachable',
      `the browser answered ${response.statusCode} with no JSON: ${text.slice(0, 200)}`,
    );
  }
  const value = isObject(body) ? body.value : undefined;
  if (response.statusCode !== 200 && !located) {
    const hostError = isObject(value) && typeof value.message === 'string' ? value.message : '';
    // The capabilities are wrong (W3C §7.2), not the browser: the client hears the browser's own words.
    if (response.statusCode === 400 && isObject(value) && value.error === 'invalid argument') {
      throw invalidArgument(hostError || 'the browser refused the capabilities');
    }
    const message = hostError || text.slice(0, 300);
    throw new LaunchFailure(
      'refused',
      `the browser refused the session (${response.statusCode}): ${message}`,
      hostError,
    );
  }
  const created = createdSession(body, hub) ?? located;
  if (created) return created;
  const stray = straySessionId(body);
  if (stray !== undefined) await deleteQuietly(agent, endpoint, stray);
  throw new WebDriverError(
    'unknown error',
    'protocol error: the browser answered the new-session request without a session',
    { status: 502 },
  );
}

/** The W3C answer, or a JSON Wire hub's (session ID at the top level, capabilities as the value). */
function createdSession(body: unknown, hub: boolean): CreatedSession | undefined {
  if (!isObject(body)) return undefined;
  const { value } = body;
  if (isObject(value) && typeof value.sessionId === 'string') {
    if (isObject(value.capabilities)) return value as CreatedSession;
    // Hubs are other people's software: a session without capabilities is still a session.
    if (hub) return { ...value, sessionId: value.sessionId, capabilities: {} };
    return undefined;
  }
  if (hub && typeof body.sessionId === 'string' && isObject(value)) {
    return { sessionId: body.sessionId, capabilities: value };
  }
  return undefined;
}

/** A session named only by a Location header (…/session/{id}) of an answer below 400. */
function locatedSession(response: Dispatcher.ResponseData): CreatedSession | undefined {
  const location = response.headers.location;
  if (response.statusCode >= 400 || typeof location !== 'string') return undefined;
  const match = /\/session\/([^/?#]+)\/?(?:[?#].*)?$/.exec(location);
  return match ? { sessionId: decodeURIComponent(match[1] as string), capabilities: {} } : undefined;
}

/** Any session ID in a malformed answer, so the session it may have started is not left running. */
function straySessionId(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const candidates = [body.sessionId, isObject(body.value) ? body.value.sessionId : undefined];
  const found = candidates.find((id) => typeof id === 'string' || typeof id === 'number');
  return found === undefined || found === '' ? undefined : String(found);
}

async function deleteQuietly(agent: Dispatcher, endpoint: UpstreamEndpoint, upstreamId: string) {
  try {
    const response = await agent.request({
      origin: endpoint.origin,
      path: `${endpoint.basePath}/session/${encodeURIComponent(upstreamId)}`,
      method: 'DELETE',
      headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
      signal: AbortSignal.timeout(STRAY_DELETE_MS),
    });
    await response.body.dump();
  } catch {
    // Best effort: the answer the client gets is the protocol error either way.
  }
}

function decode(bytes: Buffer, encoding: string | string[] | undefined): string {
  const name = String(encoding ?? '').toLowerCase();
  if (name === 'gzip' || name === 'x-gzip') return gunzipSync(bytes).toString('utf8');
  if (name === 'deflate') return inflateSync(bytes).toString('utf8');
  if (name === 'br') return brotliDecompressSync(bytes).toString('utf8');
  return bytes.toString('utf8');
}
