/** What a WebSocket upgrade came to, as a client sees it: an open socket, or the server's refusal in full. */
import type { IncomingHttpHeaders } from 'node:http';
import { text } from 'node:stream/consumers';
import type WebSocket from 'ws';

export type UpgradeOutcome =
  | { socket: WebSocket }
  | { status: number; headers: IncomingHttpHeaders; body: string };

/** Waits for the socket to open or be refused; a connection error rejects. */
export function upgradeOutcome(socket: WebSocket): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket }));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      text(response).then(
        (body) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        reject,
      );
    });
  });
}

/** The socket once open; a refused upgrade rejects with its status and body, which say why. */
export async function opened(socket: WebSocket): Promise<WebSocket> {
  const outcome = await upgradeOutcome(socket);
  if ('socket' in outcome) return outcome.socket;
  throw new Error(`the upgrade was refused: ${outcome.status} ${outcome.body}`);
}
