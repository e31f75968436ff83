/**
 * `PUT /ui/api/sessions/{id}`: marks a session's test (result, name, build, project, labels) after it ran, for
 * frameworks that learn the result only at the end. The session is named by its WebDriver session ID (what the
 * test holds) or by gridgate's key (what the status page shows); only its owner or an admin may mark it, and
 * anyone else gets the same 404 as for an unknown session. A session whose record is no longer kept is 404 too.
 */
import type { Context } from 'hono';
import { invalidSessionId } from '../../core/errors';
import type { GridDeps } from '../../core/grid-deps';
import { MAX_MARKS_BODY, parseMarksBody } from '../../core/marks-request';
import { artifactSession } from '../artifact-routes';
import { readText } from '../request-body';
import { canSee, SESSION_KEY, sessionView, visibleSession } from './ui-data';
import { UI_SECURITY_HEADERS } from './ui-page';
import type { Viewer } from './ui-views';

export async function markFromPage(
  c: Context,
  deps: GridDeps,
  viewer: Viewer,
  id: string,
): Promise<Response> {
  const key = SESSION_KEY.test(id)
    ? (await visibleSession(deps, viewer, id)).key
    : (await artifactSession(deps, id, viewer)).key;
  const marks = parseMarksBody(await readText(c.req.raw, MAX_MARKS_BODY));
  const record = await deps.sessions.mark(key, marks);
  if (!record || !canSee(viewer, record)) throw invalidSessionId(`no such session: ${key} is no longer kept`);
  return c.json({ value: sessionView(deps, record, deps.clock.now()) }, 200, UI_SECURITY_HEADERS);
}
