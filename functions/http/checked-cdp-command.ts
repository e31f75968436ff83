/**
 * The body of a CDP command sent over chromedriver's command path (core/cdp-over-http.ts) to a browser on
 * gridgate's own machine: read (it is small, and bounded), held to the session's folder, and handed back as
 * the browser is to get it. A refused command never reaches the browser: W3C `invalid argument` (400), saying
 * which CDP method and why, as the se:cdp socket's refusal does.
 */
import { checkCdpCommandBody, MAX_CDP_COMMAND_BODY } from '../core/cdp-over-http';
import { invalidArgument } from '../core/errors';
import { type GridDeps, runtimeOf, sessionPool } from '../core/grid-deps';
import type { SessionClaims } from '../core/session-token';
import { readText } from './request-body';

/**
 * The checked body to send instead of the client's, or undefined when the session's browser is not on this
 * machine (its launcher names no folder for it) and the body streams unread as every command's.
 */
export async function checkedCdpCommandBody(
  deps: GridDeps,
  claims: SessionClaims,
  request: Request,
): Promise<string | undefined> {
  const pool = sessionPool(deps, claims);
  const bounds = pool && runtimeOf(deps, pool)?.hostPaths;
  if (!bounds) return undefined;
  const limit = Math.min(MAX_CDP_COMMAND_BODY, deps.config.limits.maxBodySize);
  const verdict = await checkCdpCommandBody(await readText(request, limit), bounds.hostPaths(claims.handle));
  if ('refusal' in verdict) throw invalidArgument(verdict.refusal);
  return verdict.forward;
}
