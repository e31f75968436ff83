/** Who is asking. Users and passwords arrive with the users issue; until then every caller is the guest user. */
import { WebDriverError } from '../core/errors';
import type { GridDeps } from '../core/grid-deps';

export function requestUser(deps: GridDeps, _authorization: string | undefined | null): string {
  if (deps.config.guest === null) {
    throw new WebDriverError('invalid argument', 'authentication required', {
      status: 401,
      headers: { 'WWW-Authenticate': 'Basic realm="gridgate"' },
    });
  }
  return deps.config.guest;
}
