/**
 * The start-up sentence that says who can reach the grid and as whom (docs/security.md): from the
 * address the server listens on, and the sign-in rules of the config (users file, guest).
 */
import type { Config } from '../core/config';
import { isLoopbackAddress } from '../http/web-page-requests';

const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

export function reachNotice(config: Pick<Config, 'host' | 'port' | 'usersFile' | 'guest'>): string {
  return `${whoCanReach(config.host)}; ${whoGetsIn(config)}`;
}

function whoCanReach(host: string): string {
  if (isLoopbackAddress(host)) return `reachable from this machine only (listening on ${host})`;
  if (EVERY_INTERFACE.has(host)) {
    return `reachable from every network this machine is on (listening on ${host || 'every address'}): whoever can reach the port can start browsers here`;
  }
  return `reachable by whoever can reach ${host} (listening on ${host})`;
}

function whoGetsIn({ usersFile, guest }: Pick<Config, 'usersFile' | 'guest'>): string {
  if (usersFile === undefined) {
    return guest === null
      ? 'nobody gets in (guest off and no users file)'
      : `no users file: everyone is the guest "${guest}", no password asked`;
  }
  return guest === null
    ? `only users of ${usersFile} get in (guest off)`
    : `users of ${usersFile} sign in; requests without credentials are the guest "${guest}"`;
}
