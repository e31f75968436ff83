/**
 * Where a socket session's DevTools traffic goes: the session's own `se:cdp` at this grid's front door, so a
 * CDP or Playwright client reaches its browser through the relay and rules a WebDriver client's se:cdp gets,
 * whatever the pool (a local Chromium's DevTools port held to the session's folder, a hub's or a Selenium
 * node's `/session/{id}/se/cdp` passed on with the pool's credentials). A session whose new-session answer
 * has no se:cdp (a bare chromedriver's) serves neither kind of client.
 */
import { sessionNotCreated } from '../../core/errors';
import type { SocketSessionProtocol } from '../../core/socket-session-request';
import type { GridSession } from './grid-session-calls';

/**
 * The session's se:cdp socket at `origin` (this server's own address): the path is the grid's, never the one
 * in the answer, which names the grid as its clients reach it (a public URL, a proxy's name).
 */
export function sessionDevtoolsUrl(
  session: GridSession,
  origin: string,
  { protocol, pool }: { protocol: SocketSessionProtocol; pool: string },
): string {
  if (typeof session.capabilities['se:cdp'] !== 'string') {
    const clients = protocol === 'cdp' ? 'CDP' : 'Playwright';
    throw sessionNotCreated(
      `the pool ${pool} cannot serve ${clients} clients: its browser offers no DevTools socket (no se:cdp in its new-session answer)`,
    );
  }
  return `${origin.replace(/^http/, 'ws')}/session/${session.sessionId}/se/cdp`;
}
