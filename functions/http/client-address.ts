/**
 * The address a request came from, where the runtime tells it (the Node server's socket), for limits
 * that must fall on one sender and not on everyone: password checks (request-user.ts).
 */
import type { IncomingMessage } from 'node:http';

/**
 * The peer's address under the Node server; undefined elsewhere (Lambda serves one request at a time).
 * A request a worker process passed on to its primary carries the worker's peer as `clientAddress`.
 */
export function clientAddress(env: unknown): string | undefined {
  const bindings = env as { incoming?: Partial<IncomingMessage>; clientAddress?: string } | undefined;
  return bindings?.clientAddress ?? bindings?.incoming?.socket?.remoteAddress;
}
