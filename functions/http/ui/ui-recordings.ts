/**
 * The status page's ended sessions with recordings: the list (the viewer's own, or everyone's for an admin,
 * searchable by test name, user, key, build or label, and filtered by the test's result, build and label) and each one's video, log, console log, HAR and last frame, by the session's key. The
 * same owner-or-admin rule as the session pages; a key the viewer may not see is the same 404 as one that
 * names nothing.
 */
import type { Context, Hono } from 'hono';
import { artifactSourceFor, artifactSources } from '../../core/artifact-location';
import type { ArtifactKind, RecordedSession } from '../../core/artifact-ports';
import { invalidSessionId } from '../../core/errors';
import type { GridDeps } from '../../core/grid-deps';
import type { SessionRecord } from '../../core/ports';
import { outcomeOf } from '../../core/test-marks';
import { artifactResponse } from '../artifact-response';
import { UI_SECURITY_HEADERS } from './ui-page';
import type { RecordingList, RecordingView, SessionRecordings, Viewer } from './ui-views';

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
    const filter = recordingFilter((name) => c.req.query(name));
    const seen = (await recordedSessions(deps)).filter((record) => canSee(viewer(c), record));
    const found = seen.filter(filter);
    const list: RecordingList = { recordings: found.slice(0, LISTED).map(view), total: found.length };
    return c.json(list, 200, UI_SECURITY_HEADERS);
  });
  for (const kind of ['video', 'log', 'console', 'har', 'screenshot'] as const) {
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

/**
 * Every source's list, newest first, each with what its test said of itself as the store keeps it (one
 * listing of the store: a source that lists from disk knows only what was asked when the session began).
 */
async function recordedSessions(deps: GridDeps): Promise<RecordedSession[]> {
  const [lists, records] = await Promise.all([
    Promise.all(artifactSources(deps).map((source) => source.list?.() ?? [])),
    deps.sessions.recordedSessions().catch(() => []),
  ]);
  const marked = new Map(records.map((record) => [record.key, record]));
  return lists
    .flat()
    .map((recorded) => withRecordMarks(recorded, marked.get(recorded.key)))
    .sort((a, b) => (b.endedAt ?? b.createdAt) - (a.endedAt ?? a.createdAt));
}

function withRecordMarks(recorded: RecordedSession, record: SessionRecord | undefined): RecordedSession {
  if (!record) return recorded;
  const { result, name, build, project, labels } = record;
  return {
    ...recorded,
    ...(name ? { name } : {}),
    ...(result ? { result } : {}),
    ...(build ? { build } : {}),
    ...(project ? { project } : {}),
    ...(labels ? { labels } : {}),
  };
}

/**
 * What an ended session kept, for its page, which has checked the viewer may see the session (the same
 * owner-or-admin rule as the list): its files' URLs and why a video is missing; undefined: none kept. Asked
 * of its pool's source only: one read for a page that refreshes every few seconds.
 */
export async function endedSessionRecordings(
  deps: GridDeps,
  { key, pool }: Pick<SessionRecord, 'key' | 'pool'>,
): Promise<SessionRecordings | undefined> {
  const recorded = await artifactSourceFor(deps, pool)?.recorded?.(key);
  if (!recorded) return undefined;
  const { videoUrl, logUrl, consoleUrl, harUrl, screenshotUrl, videoNotKept } = view(recorded);
  return {
    ...(videoUrl ? { videoUrl } : {}),
    ...(logUrl ? { logUrl } : {}),
    ...(consoleUrl ? { consoleUrl } : {}),
    ...(harUrl ? { harUrl } : {}),
    ...(screenshotUrl ? { screenshotUrl } : {}),
    ...(videoNotKept ? { videoNotKept } : {}),
  };
}

async function visibleRecording(deps: GridDeps, who: Viewer, key: string) {
  for (const source of artifactSources(deps)) {
    const record = await source.recorded?.(key);
    if (record && canSee(who, record)) return { source, record };
  }
  throw invalidSessionId(`no such session: ${key}`);
}

const canSee = (who: Viewer, record: RecordedSession) => who.admin || record.user === who.user;

/**
 * The list's filters, from the query: `q` searches test name, user, session key, pool, build, project and
 * labels; `result` (passed, failed, unknown), `build` (exact) and `label` (a name, or name=value) narrow it.
 */
function recordingFilter(query: (name: string) => string | undefined) {
  const search = (query('q') ?? '').trim().toLowerCase();
  const result = query('result')?.trim() || undefined;
  const build = query('build')?.trim() || undefined;
  const label = query('label')?.trim() || undefined;
  return (record: RecordedSession): boolean =>
    (!search || searchable(record).some((text) => text.toLowerCase().includes(search))) &&
    (!result || outcomeOf(record) === result) &&
    (!build || record.build === build) &&
    (!label || hasLabel(record, label));
}

function searchable(record: RecordedSession): string[] {
  const labels = Object.entries(record.labels ?? {}).map(([key, value]) => `${key}=${value}`);
  return [record.name, record.user, record.key, record.pool, record.build, record.project, ...labels].filter(
    (text): text is string => typeof text === 'string',
  );
}

function hasLabel(record: RecordedSession, label: string): boolean {
  const at = label.indexOf('=');
  const name = at === -1 ? label : label.slice(0, at);
  const labels = record.labels ?? {};
  return Object.hasOwn(labels, name) && (at === -1 || labels[name] === label.slice(at + 1));
}

function view({ ranAt: _where, ...record }: RecordedSession): RecordingView {
  const at = (kind: ArtifactKind | 'screenshot') => `${RECORDINGS_API.slice(1)}/${record.key}/${kind}`;
  return {
    ...record,
    ...(record.video ? { videoUrl: at('video') } : {}),
    ...(record.log ? { logUrl: at('log') } : {}),
    ...(record.console ? { consoleUrl: at('console') } : {}),
    ...(record.har ? { harUrl: at('har') } : {}),
    ...(record.screenshot && record.endReason !== 'deleted' ? { screenshotUrl: at('screenshot') } : {}),
  };
}
