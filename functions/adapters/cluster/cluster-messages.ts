/**
 * What a Node server's primary process and its worker processes say to each other over node:cluster's
 * IPC channel (JSON): the config in use, sessions ended, activity, and calls of the primary's ports.
 * Requests themselves never pass here: a worker relays those it does not serve over HTTP (primary-relay.ts).
 */
import type { PoolConfig } from '../../core/config';
import type { EndedSession } from '../../core/ended-sessions';
import { WebDriverError, type WebDriverErrorCode } from '../../core/errors';
import { ASYNC_STORE_CALLS, type AsyncStoreCall } from '../../core/ports';
import type { ConfigState } from '../../core/swap-config';

/** Store methods a worker may call on the primary's store (touch goes in activity batches instead). */
export const STORE_CALLS = ASYNC_STORE_CALLS;
export type StoreCall = AsyncStoreCall;

/**
 * One call of a port the primary holds: its store, the launcher of a pool kind (stop only), or its
 * password checks (one per-client ledger for the whole server).
 */
export type PortCall =
  | { port: 'sessions'; method: StoreCall; args: unknown[] }
  | { port: 'launcher'; poolKind: PoolConfig['kind']; method: 'stop'; args: unknown[] }
  | { port: 'passwords'; method: 'check'; args: [client: string, password: string, hash: string] };

/** A session's activity since the last batch: its latest time, its commands, the last one's method and path. */
export type Touch = [key: string, at: number, commands: number, method?: string, path?: string];

export type ToWorker =
  | {
      type: 'setup';
      /** The key that signs session IDs, base64. */
      secret: string;
      state: ConfigState;
      /** The primary's Unix socket, for the requests a worker relays. */
      socketPath: string;
      /** The primary's pid, which names its local sessions' folders (pools/local/session-directories.ts). */
      sessionOwner: number;
      /** Pool kinds the primary runs a launcher for. */
      launcherKinds: PoolConfig['kind'][];
      /** Of those, the kinds whose browsers run on this machine, their commands held to the sessions' folders. */
      hostPathKinds: PoolConfig['kind'][];
      /** Of those, the kinds whose browsers' networks this machine enters: a worker opens their listeners itself. */
      networkKinds: PoolConfig['kind'][];
      /**
       * The sessions the server ended so far, oldest first: a worker started later (one replacing a
       * worker that died) was not told of them, and would send their commands to browser addresses that
       * may be another session's by now.
       */
      ended: [key: string, session: EndedSession][];
    }
  | { type: 'config'; state: ConfigState }
  | { type: 'ended'; key: string; session: EndedSession }
  | { type: 'reply'; id: number; value?: unknown; error?: WireError }
  | { type: 'metrics'; id: number }
  /** The server is shutting down: stop serving and exit. */
  | { type: 'stop' };

export type ToPrimary =
  /** The worker listens to the channel: the primary may send the setup. */
  | { type: 'ready' }
  | ({ type: 'call'; id: number } & PortCall)
  | { type: 'activity'; touches: Touch[]; requests: number }
  | { type: 'ended'; key: string; session: EndedSession }
  | { type: 'metrics'; id: number; snapshot: unknown };

/** An error as it crosses the channel: a WebDriverError keeps its code and status, anything else its message. */
export interface WireError {
  message: string;
  code?: WebDriverErrorCode;
  status?: number;
  headers?: Record<string, string>;
}

export function toWire(error: unknown): WireError {
  if (error instanceof WebDriverError) {
    return { message: error.message, code: error.code, status: error.status, headers: error.headers };
  }
  return { message: String((error as Error)?.message ?? error) };
}

export function fromWire(wire: WireError): Error {
  if (!wire.code) return new Error(wire.message);
  return new WebDriverError(wire.code, wire.message, { status: wire.status, headers: wire.headers });
}
