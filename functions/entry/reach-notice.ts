/**
 * The start-up sentence that says who can reach the grid and as whom (docs/security.md): from the
 * address the server listens on, and the sign-in rules of the config (users file, guest); and, for a
 * grid other machines reach, at which names web pages may use it (DNS rebinding, web-page-requests.ts).
 */
import type { Config } from '../core/config';
import { isLoopbackAddress } from '../http/web-page-requests';

const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

type ReachSettings = Pick<Config, 'host' | 'port' | 'usersFile' | 'guest' | 'publicUrl' | 'allowedHosts'>;

export function reachNotice(config: ReachSettings): string {
  const pages = webPagesByName(config);
  return `${whoCanReach(config.host)}; ${whoGetsIn(config)}${pages ? `; ${pages}` : ''}`;
}

/**
 * Said where other machines reach the grid and no name of it is configured: people will open the status
 * page at the machine's name, and be refused until the config names it.
 */
function webPagesByName({ host, publicUrl, allowedHosts }: ReachSettings): string | undefined {
  if (isLoopbackAddress(host) || publicUrl !== undefined || allowedHosts.length > 0) return undefined;
  return 'web pages (the status page too) may use it only at localhost or an IP address: browsers at any other name are refused until publicUrl or allowedHosts names it (DNS rebinding)';
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
