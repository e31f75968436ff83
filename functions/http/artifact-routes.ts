/**
 * Selenoid's paths to a session's recordings, so its tooling works unchanged: `GET /video/{sessionId}.mp4`
 * and `GET /logs/{sessionId}.log` (ggr's `/video/{sessionId}` and `/logs/{sessionId}` too), beside them the
 * console log and HAR the grid captured itself (`/console/{sessionId}.log`, `/har/{sessionId}.har`), and
 * `DELETE` on them to remove one where its source can (kept on disk, or at the hub), answered from
 * where the session's pool kind keeps them (core/artifact-location.ts); a video is served in the format it
 * was recorded in (its Content-Type says which). Only the session's owner or an admin gets
 * them; anyone else, and any ID that is not a session's, gets the same 404, so nothing can be learnt by
 * trying IDs. Unlike commands, a session's recordings outlive its maximum age: the retention bounds them.
 */
import type { Context, Hono, Next } from 'hono';
import { artifactSourceFor } from '../core/artifact-location';
import type { ArtifactKind, ArtifactSession } from '../core/artifact-ports';
import { invalidSessionId, WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';
import { artifactResponse } from './artifact-response';
import type { Viewer } from './ui/ui-views';

type Env = { Variables: { user: string } };

// Selenoid's `/video/{id}.mp4` and `/logs/{id}.log`, and ggr's without the extension; a session whose pool
// kind keeps no recordings here goes on to a hub's. The captures are gridgate's own: none elsewhere.
const PATHS: { prefix: string; kind: ArtifactKind; file: RegExp; hubsToo: boolean }[] = [
  { prefix: '/video', kind: 'video', file: /^([A-Za-z0-9_-]+?)(?:\.mp4)?$/, hubsToo: true },
  { prefix: '/logs', kind: 'log', file: /^([A-Za-z0-9_-]+?)(?:\.log)?$/, hubsToo: true },
  { prefix: '/console', kind: 'console', file: /^([A-Za-z0-9_-]+?)(?:\.log)?$/, hubsToo: false },
  { prefix: '/har', kind: 'har', file: /^([A-Za-z0-9_-]+?)(?:\.har)?$/, hubsToo: false },
];

const NOT_VALID = 'no such session: the session ID is not valid for this user';

/** A session whose pool kind keeps no recordings anywhere gridgate knows goes on to the routes registered after these. */
export function registerArtifactRoutes(
  app: Hono<Env>,
  deps: GridDeps,
  admins: () => readonly string[],
): void {
  for (const { prefix, kind, file, hubsToo } of PATHS) {
    app.all(`${prefix}/:file`, async (c: Context<Env>, next: Next) => {
      const token = file.exec(c.req.param('file') ?? '')?.[1];
      const user = c.get('user');
      const session = await artifactSession(deps, token, { user, admin: admins().includes(user) });
      const source = artifactSourceFor(deps, session.pool);
      if (!source) {
        if (hubsToo) return next();
        throw invalidSessionId(missing(kind));
      }
      const method = c.req.method;
      if (method === 'DELETE') {
        // Selenoid's removal, which ggr passes on: tooling deletes the videos of tests that passed.
        if (!source.remove)
          throw new WebDriverError(
            'unknown method',
            `DELETE is not allowed on ${c.req.path}: these recordings are removed when their retention ends`,
          );
        const removed = await source.remove(session, kind);
        if (!removed) throw invalidSessionId(missing(kind));
        return removed.kind === 'removed' ? c.json({ value: null }) : artifactResponse(c, removed);
      }
      if (method !== 'GET' && method !== 'HEAD')
        throw new WebDriverError('unknown method', `${method} is not allowed on ${c.req.path}`);
      const artifact = await source.find(session, kind, {
        method,
        range: c.req.header('range'),
        ifRange: c.req.header('if-range'),
      });
      if (!artifact) throw invalidSessionId(missing(kind));
      return artifactResponse(c, artifact);
    });
  }
}

/**
 * The session a session ID names, if the viewer may have its recordings: the owner's ID verifies for them;
 * an admin's request is verified against the owner the ID claims (its signature decides, not the claim).
 */
export async function artifactSession(
  deps: GridDeps,
  token: string | undefined,
  viewer: Viewer,
): Promise<ArtifactSession> {
  if (!token) throw invalidSessionId(NOT_VALID);
  const own = deps.tokens.verify(token, viewer.user);
  if (own.ok) return { ...own.claims, user: viewer.user };
  const claimed = viewer.admin ? deps.tokens.unverifiedClaims(token) : undefined;
  const owner = claimed && (await ownerOf(deps, claimed.key, claimed.pool));
  const check = owner ? deps.tokens.verify(token, owner) : undefined;
  if (owner && check?.ok) return { ...check.claims, user: owner };
  deps.logger.log('SESSION_ID_REJECTED', { user: viewer.user, reason: 'artifact', id: token.slice(0, 24) });
  throw invalidSessionId(NOT_VALID);
}

async function ownerOf(deps: GridDeps, key: string, pool: string): Promise<string | undefined> {
  const record = await deps.sessions.get(key).catch(() => undefined);
  if (record) return record.user;
  return (await artifactSourceFor(deps, pool)?.recorded?.(key))?.user;
}

const NAMES: Record<ArtifactKind, string> = {
  video: 'video',
  log: 'log',
  console: 'console log',
  har: 'HAR (network log)',
};

function missing(kind: ArtifactKind): string {
  const what = NAMES[kind];
  return `no ${what} of this session: it was not recorded, is not finished yet, or is no longer kept`;
}
