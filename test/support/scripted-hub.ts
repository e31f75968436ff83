/**
 * A W3C remote end on 127.0.0.1 that misbehaves on request, for what real browsers do only by accident:
 * new sessions whose capabilities ask `test:hang` are never answered; under a session,
 * POST .../test/echo answers the body's length and SHA-256, GET .../test/hang never answers, and
 * GET .../test/break sends a 200 head and part of a body, then drops the connection.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BROKEN_BODY_PREFIX = `{"value":"${'x'.repeat(64 * 1024)}`;

export class ScriptedHub {
  readonly seen: string[] = [];
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((error: Error) => res.destroy(error));
  });

  static async start(): Promise<ScriptedHub> {
    const hub = new ScriptedHub();
    await new Promise<void>((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
    return hub;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = Buffer.concat(await req.toArray());
    const path = req.url ?? '';
    this.seen.push(`${req.method} ${path}`);
    const json = (value: unknown) =>
      res
        .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ value }));
    if (req.method === 'POST' && path === '/session') {
      if (body.includes('"test:hang"')) return;
      json({ sessionId: randomUUID(), capabilities: { browserName: 'firefox', browserVersion: '140.0' } });
    } else if (path.endsWith('/test/echo')) {
      json({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    } else if (path.endsWith('/test/hang')) {
      // Never answered: the browser is stuck.
    } else if (path.endsWith('/test/break')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      // The reset a moment after the prefix: the client has the start of the body when the connection breaks.
      res.write(BROKEN_BODY_PREFIX, () => setTimeout(() => res.socket?.destroy(), 50));
    } else {
      json(null);
    }
  }
}
