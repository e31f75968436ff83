/**
 * What the status page asks of a session's browser: a screenshot for the live view (the browser's own
 * W3C Take Screenshot command, §17.1, which costs it a little work each time) and ending the session.
 */
import type { Dispatcher } from 'undici';
import { upstreamEndpoint } from '../../core/browser-network';
import { invalidSessionId, WebDriverError } from '../../core/errors';
import { type GridDeps, sessionPool } from '../../core/grid-deps';
import type { SessionRecord } from '../../core/ports';
import { endSession } from '../../use-cases/end-session';

// A person is watching: a browser that takes longer than this is better shown as "no picture" than waited for.
const SCREENSHOT_TIMEOUT_MS = 10_000;
// Ending never waits long on a stuck browser: stopping it is what ends the session, the DELETE is a courtesy.
const DELETE_TIMEOUT_MS = 5_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Where the session's browser answers, checked against its pool's browser networks like any session ID. */
function browserEndpoint(deps: GridDeps, record: SessionRecord) {
  const pool = sessionPool(deps, record);
  if (!pool) throw invalidSessionId(`no such session: its pool "${record.pool}" is not served here`);
  const endpoint = upstreamEndpoint(pool, record.address);
  return {
    origin: endpoint.origin,
    path: `${endpoint.basePath}/session/${record.upstreamId}`,
    headers: endpoint.authorization ? { authorization: endpoint.authorization } : {},
  };
}

/**
 * The session's current screen as PNG bytes. It does not count as activity: watching a session must not
 * keep an abandoned one from its idle timeout.
 */
export async function takeScreenshot(
  deps: GridDeps,
  agent: Dispatcher,
  record: SessionRecord,
): Promise<Buffer> {
  if (record.endedAt !== undefined) throw invalidSessionId(`session ended: ${record.endReason ?? 'ended'}`);
  const endpoint = browserEndpoint(deps, record);
  let status: number;
  let text: string;
  try {
    const response = await agent.request({
      origin: endpoint.origin,
      path: `${endpoint.path}/screenshot`,
      method: 'GET',
      headers: endpoint.headers,
      headersTimeout: SCREENSHOT_TIMEOUT_MS,
      bodyTimeout: SCREENSHOT_TIMEOUT_MS,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    // What undici says names the browser's address inside the grid's network: it stays in the cause, for the log.
    throw new WebDriverError(
      'unknown error',
      'the browser did not give a screenshot; the grid’s log says why',
      {
        cause: error,
        status: 502,
        session: record,
      },
    );
  }
  const value = parseValue(text);
  if (status !== 200 || typeof value !== 'string') {
    const message = (value as { message?: unknown } | undefined)?.message;
    throw new WebDriverError(
      'unknown error',
      `the browser did not give a screenshot (HTTP ${status}${typeof message === 'string' ? `: ${message}` : ''})`,
      { status: 502 },
    );
  }
  const png = Buffer.from(value, 'base64');
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new WebDriverError('unknown error', 'the browser answered the screenshot with something not PNG', {
      status: 502,
    });
  }
  return png;
}

function parseValue(text: string): unknown {
  try {
    return (JSON.parse(text) as { value?: unknown }).value;
  } catch {
    return undefined;
  }
}

/**
 * Ends a running session from the page: asks the browser to end its session as the client's DELETE
 * would (so a hub ends it too), then stops the browser and frees the slot whatever the browser said.
 */
export async function endFromPage(deps: GridDeps, agent: Dispatcher, record: SessionRecord): Promise<void> {
  if (record.endedAt !== undefined) {
    throw invalidSessionId(`session already ended: ${record.endReason ?? 'ended'}`);
  }
  const endpoint = browserEndpoint(deps, record);
  try {
    const response = await agent.request({
      origin: endpoint.origin,
      path: endpoint.path,
      method: 'DELETE',
      headers: endpoint.headers,
      headersTimeout: DELETE_TIMEOUT_MS,
      bodyTimeout: DELETE_TIMEOUT_MS,
    });
    await response.body.dump();
  } catch (error) {
    // A stuck browser is why people press the button: stopping it below is what matters.
    deps.logger.log('UPSTREAM_ERROR', { session: record.key, pool: record.pool, error: String(error) });
  }
  await endSession(deps, record, 'deleted');
}
