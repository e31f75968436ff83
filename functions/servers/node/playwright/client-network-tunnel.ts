/**
 * The client's end of `exposeNetwork` for one Playwright session: the tunnel Playwright's clients already
 * speak (its SocksSupport object, remote/playwrightServer.ts and server/socksInterceptor.ts), through which a
 * connection the browser makes is opened by the client, on the client's machine. The session's Playwright
 * server is not asked to serve it (it would dial every other host itself, from the grid's machine): gridgate
 * announces the object to the client on the session's socket, takes the client's answers to it out of what
 * the server gets, and opens only the connections the browser's proxy hands it (browser-proxy.ts).
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Verdict } from '../../../core/socket-command-check';
import type { ClientMessageCheck } from '../socket-relay';

// A client that never answers a connection it was asked for leaves the browser waiting no longer than this.
const OPEN_TIMEOUT_MS = 30_000;

/** What the client's side of one tunnelled connection does with what arrives from the client. */
export interface TunnelSink {
  data(chunk: Buffer): void;
  /** The client's side ended (its socket's end, or an error). */
  end(): void;
}

/** One connection the client opened on its machine. */
export interface TunnelConnection {
  write(chunk: Buffer): void;
  /** The browser's side ended: the client closes its socket. */
  close(): void;
}

/** Why the client could not open a connection: its socket's error code (ECONNREFUSED...) or its refusal. */
export class TunnelRefusal extends Error {
  constructor(readonly errorCode: string) {
    super(`the client could not connect (${errorCode})`);
  }
}

interface Connection {
  sink: TunnelSink;
  opened?: { resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
}

interface ClientMessage {
  id?: number;
  guid?: string;
  method?: string;
  params?: { uid?: string; data?: string; errorCode?: string };
}

export class ClientNetworkTunnel implements ClientMessageCheck {
  private readonly guid = `socksSupport@${randomBytes(16).toString('hex')}`;
  private readonly connections = new Map<string, Connection>();
  private client: WebSocket | undefined;

  /**
   * The client's socket is open: the tunnel's object is announced before anything of the server's, as a
   * Playwright server announces it beside its own objects (a child of the connection's root, guid "").
   */
  attach(client: WebSocket): void {
    this.client = client;
    this.send({
      guid: '',
      method: '__create__',
      params: { type: 'SocksSupport', initializer: {}, guid: this.guid },
    });
  }

  /** Only the client's messages to the tunnel's object name its guid. */
  mayCheck(message: Buffer): boolean {
    return message.includes(this.guid, 0, 'latin1');
  }

  async decide(message: Buffer): Promise<Verdict> {
    const text = message.toString('utf8');
    const parsed = JSON.parse(text) as ClientMessage;
    if (parsed.guid !== this.guid) return { forward: text };
    this.received(parsed.method, parsed.params ?? {});
    // The client waits for an answer to each call (socksInterceptor keeps its id until one comes).
    return { answer: JSON.stringify({ id: parsed.id, result: {} }) };
  }

  /** Asks the client to open host:port on its machine; resolves once it has, rejects with a TunnelRefusal. */
  open(host: string, port: number, sink: TunnelSink): Promise<TunnelConnection> {
    const uid = randomBytes(16).toString('hex');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.failed(uid, 'ETIMEDOUT'), OPEN_TIMEOUT_MS);
      const opened = {
        resolve: () =>
          resolve({
            write: (chunk) => this.event('socksData', { uid, data: chunk.toString('base64') }),
            close: () => {
              if (this.connections.delete(uid)) this.event('socksClosed', { uid });
            },
          }),
        reject,
        timer,
      };
      this.connections.set(uid, { sink, opened });
      this.event('socksRequested', { uid, host, port });
    });
  }

  /** The session's socket closed: every tunnelled connection ends. */
  close(): void {
    for (const uid of [...this.connections.keys()]) this.failed(uid, 'ECONNRESET');
  }

  private received(method: string | undefined, params: NonNullable<ClientMessage['params']>): void {
    const uid = params.uid ?? '';
    const connection = this.connections.get(uid);
    if (!connection) return; // one the browser's side closed meanwhile
    if (method === 'socksConnected' && connection.opened) {
      clearTimeout(connection.opened.timer);
      connection.opened.resolve();
      delete connection.opened;
    } else if (method === 'socksFailed') {
      this.failed(uid, params.errorCode ?? 'ECONNREFUSED');
    } else if (method === 'socksData' && !connection.opened) {
      connection.sink.data(Buffer.from(params.data ?? '', 'base64'));
    } else if (method === 'socksEnd' || method === 'socksError') {
      this.connections.delete(uid);
      connection.sink.end();
    }
  }

  private failed(uid: string, errorCode: string): void {
    const connection = this.connections.get(uid);
    if (!connection) return;
    this.connections.delete(uid);
    if (connection.opened) {
      clearTimeout(connection.opened.timer);
      connection.opened.reject(new TunnelRefusal(errorCode));
    } else {
      connection.sink.end();
    }
  }

  private event(method: string, params: Record<string, unknown>): void {
    this.send({ guid: this.guid, method, params });
  }

  private send(message: Record<string, unknown>): void {
    const client = this.client;
    if (client && client.readyState === client.OPEN) client.send(JSON.stringify(message));
  }
}
