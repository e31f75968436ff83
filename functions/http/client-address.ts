/**
 * The address a request came from, where the runtime tells it (the Node server's socket), for limits
 * that must fall on one sender and not on everyone: password checks (request-user.ts).
 */
import type { IncomingMessage } from 'node:http';

/** The peer's address under the Node server; undefined elsewhere (Lambda serves one request at a time). */
export function clientAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: Partial<IncomingMessage> } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}
