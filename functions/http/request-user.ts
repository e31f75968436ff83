/**
 * Who is asking, by ggr's rules: valid HTTP Basic credentials make the request that user's; none make
 * it the guest's when guests are allowed; wrong ones are refused even then. For HTTP and WebSockets.
 */
import { WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';

export interface BasicCredentials {
  user: string;
  password: string;
}

const BASIC = /^Basic +([A-Za-z0-9+/]+=*) *$/i;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Fails closed: a users file that nobody checks would let every request in as the guest. Called where an
 * app is made, and by the Node server at its start (it makes its app at the first request, app-listener.ts).
 */
export function requireUserDirectory(deps: GridDeps): void {
  if (deps.config.usersFile !== undefined && !deps.users) {
    throw new Error(`usersFile ${deps.config.usersFile} is configured but no user directory was given`);
  }
}

/** `client`: the caller's address, so that one sender of many wrong passwords is slowed and nobody else. */
export async function requestUser(
  deps: GridDeps,
  authorization: string | undefined | null,
  client: string | undefined,
): Promise<string> {
  const credentials = deps.users ? basicCredentials(authorization) : undefined;
  if (credentials === undefined) return guestUser(deps);
  if (
    credentials !== null &&
    (await deps.users?.verify(credentials.user, credentials.password, client ?? 'unknown'))
  ) {
    return credentials.user;
  }
  throw unauthorized('wrong user name or password');
}

/**
 * The request's user when no password needs checking (no users file, or no Basic credentials sent): the
 * guest, or 401 where guests are not allowed. Undefined when credentials must be checked (requestUser).
 */
export function userWithoutPassword(deps: GridDeps, authorization: string | undefined): string | undefined {
  // Without a users file there is nobody to sign in as: credentials mean nothing and everyone is the guest.
  if (deps.users && basicCredentials(authorization) !== undefined) return undefined;
  return guestUser(deps);
}

function guestUser(deps: GridDeps): string {
  if (deps.config.guest === null) throw unauthorized('authentication required');
  return deps.config.guest;
}

/**
 * RFC 7617: `Basic base64(user ":" password)` in UTF-8. Undefined when the header carries no Basic
 * credentials (absent, or another scheme: ggr treats those as anonymous too); null when it is malformed.
 */
export function basicCredentials(header: string | undefined | null): BasicCredentials | null | undefined {
  if (!header || !/^Basic(\s|$)/i.test(header)) return undefined;
  const encoded = BASIC.exec(header)?.[1];
  if (encoded === undefined) return null;
  let decoded: string;
  try {
    decoded = UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

// There is no W3C error code for authentication; 401 with a Basic challenge is what clients understand.
function unauthorized(message: string): WebDriverError {
  return new WebDriverError('invalid argument', message, {
    status: 401,
    headers: { 'WWW-Authenticate': 'Basic realm="gridgate"' },
  });
}
