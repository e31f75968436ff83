/**
 * How a session's client speaks to its browser: WebDriver (`POST /session`), or over one WebSocket that is
 * the session itself, CDP or Playwright's own protocol (socket-session-request.ts). The grid's socket layer
 * says which in `gridgate:options.protocol` of the session it makes; the status page shows it.
 */
import { isObject } from './capabilities';
import { invalidArgument } from './errors';
import { GRIDGATE_OPTIONS } from './session-limits';
import type { SocketSessionProtocol } from './socket-session-request';

export type SessionProtocol = 'webdriver' | SocketSessionProtocol;

const SOCKET_PROTOCOLS: readonly string[] = ['cdp', 'playwright'] satisfies SocketSessionProtocol[];

/** The socket protocol `gridgate:options` names; none: a WebDriver session. */
export function protocolAsked(options: unknown): SocketSessionProtocol | undefined {
  if (!isObject(options) || options.protocol === undefined) return undefined;
  const { protocol } = options;
  if (typeof protocol !== 'string' || !SOCKET_PROTOCOLS.includes(protocol)) {
    throw invalidArgument(`${GRIDGATE_OPTIONS}.protocol is "cdp" or "playwright"`);
  }
  return protocol as SocketSessionProtocol;
}
