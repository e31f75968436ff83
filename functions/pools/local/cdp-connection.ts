/**
 * A minimal Chrome DevTools Protocol client over the browser's own WebSocket (`/json/version`), with flat
 * target sessions: commands answered by id, events handed to one listener. Only what recording a session's
 * screen needs; it talks to a Chromium gridgate started, on the loopback interface. `ws` is loaded by the
 * first connection, not with the server.
 */
import type { WebSocket } from 'ws';

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

// The browser answers on loopback at once; one that does not within this is not going to.
const OPEN_TIMEOUT_MS = 10_000;

export class CdpConnection {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Resolves when the WebSocket is closed, by either side. */
  readonly closed: Promise<void>;

  private constructor(
    private readonly socket: WebSocket,
    onEvent: (event: CdpEvent) => void,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
      } & Partial<CdpEvent>;
      if (message.id === undefined) {
        if (message.method) onEvent(message as CdpEvent);
        return;
      }
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(`${message.error.message}`));
      else waiting?.resolve(message.result ?? {});
    });
    socket.on('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('the browser closed DevTools'));
      this.pending.clear();
    });
    // A failing socket also closes; the error itself needs a listener so it does not throw.
    socket.on('error', () => undefined);
  }

  /** Connects to the browser at host:port (its DevTools address). */
  static async open(address: string, onEvent: (event: CdpEvent) => void): Promise<CdpConnection> {
    const version = await fetch(`http://${address}/json/version`, {
      signal: AbortSignal.timeout(OPEN_TIMEOUT_MS),
    });
    const { webSocketDebuggerUrl } = (await version.json()) as { webSocketDebuggerUrl: string };
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(webSocketDebuggerUrl, {
      perMessageDeflate: false,
      handshakeTimeout: OPEN_TIMEOUT_MS,
      // Screencast frames are JPEGs in base64: far below this, but larger than ws's own default is not.
      maxPayload: 64 * 1024 * 1024,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new CdpConnection(socket, onEvent);
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (this.socket.readyState !== this.socket.OPEN) return Promise.reject(new Error('DevTools is closed'));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Drops the connection at once: nothing more is wanted from the browser, which may be gone already. */
  close(): Promise<void> {
    this.socket.terminate();
    return this.closed;
  }
}
