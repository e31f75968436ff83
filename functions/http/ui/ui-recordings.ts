/**
 * The status page's ended sessions with recordings: the list (the viewer's own, or everyone's for an admin,
 * searchable by test name, user or key) and each one's video, log and last frame, by the session's key. The
 * same owner-or-admin rule as the session pages; a key the viewer may not see is the same 404 as one that
 * names nothing.
 */
import type { Context, Hono } from 'hono';
import { artifactSources } from '../../core/artifact-location';
import type { ArtifactKind, RecordedSession } from '../../core/artifact-ports';
import { invalidSessionId } from '../../core/errors';
import type { GridDeps } from '../../core/grid-deps';
import { artifactResponse } from '../artifact-response';
import { UI_SECURITY_HEADERS } from './ui-page';
import type { RecordingList, RecordingView, Viewer } from './ui-views';

type UiEnv = { Variables: { user: string } };

const RECORDINGS_API = '/ui/api/recordings';
// The page lists the newest ones; a search finds older ones among everything kept.
const LISTED = 100;

export function registerRecordingRoutes(
  app: Hono<UiEnv>,
  deps: GridDeps,
  viewer: (c: Context<UiEnv>) => Viewer,
): void {
  app.get(RECORDINGS_API, async (c) => {
    const search = (c.req.query('q') ?? '').trim().toLowerCase();
    const seen = (await recordedSessions(deps)).filter((record) => canSee(viewer(c), record));
    const found = search ? seen.filter((record) => matches(record, search)) : seen;
    const list: RecordingList = { recordings: found.slice(0, LISTED).map(view), total: found.length };
    return c.json(list, 200, UI_SECURITY_HEADERS);
  });
  for (const kind of ['video', 'log', 'screenshot'] as const) {
    app.get(`${RECORDINGS_API}/:key/${kind}`, async (c) => {
      const found = await visibleRecording(deps, viewer(c), c.req.param('key'));
      const { key, user, pool, ranAt } = found.record;
      // Sources that find recordings by the session's key alone (a local disk's) need no more of it.
      const where = ranAt ?? { address: '', upstreamId: '', handle: '' };
      const artifact = await found.source.find({ key, user, pool, ...where }, kind);
      if (!artifact) throw invalidSessionId(`no ${kind} of session ${found.record.key}`);
      return artifactResponse(c, artifact);
    });
  }
}

async function recordedSessions(deps: GridDeps): Promise<RecordedSession[]> {
  const lists = await Promise.all(artifactSources(deps).map((source) => source.list?.() ?? []));
  return lists.flat().sort((a, b) => (b.endedAt ?? b.createdAt) - (a.endedAt ?? a.createdAt));
}

async function visibleRecording(deps: GridDeps, who: Viewer, key: string) {
  for (const source of artifactSources(deps)) {
    const record = await source.recorded?.(key);
    if (record && canSee(who, record)) return { source, record };
  }
  throw invalidSessionId(`no such session: ${key}`);
}

const canSee = (who: Viewer, record: RecordedSession) => who.admin || record.user === who.user;

function matches(record: RecordedSession, search: string): boolean {
  return [record.name, record.user, record.key, record.pool].some((text) =>
    text?.toLowerCase().includes(search),
  );
}

function view({ ranAt: _where, ...record }: RecordedSession): RecordingView {
  const at = (kind: ArtifactKind | 'screenshot') => `${RECORDINGS_API.slice(1)}/${record.key}/${kind}`;
  return {
    ...record,
    ...(record.video ? { videoUrl: at('video') } : {}),
    ...(record.log ? { logUrl: at('log') } : {}),
    ...(record.screenshot && record.endReason !== 'deleted' ? { screenshotUrl: at('screenshot') } : {}),
  };
}
