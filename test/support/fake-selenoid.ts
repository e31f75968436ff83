/**
 * A Selenoid-like hub on 127.0.0.1, speaking the parts of Selenoid (aerokube/selenoid) gridgate passes through:
 * new sessions under /wd/hub with a session limit, waiting in a queue when full unless the request carries
 * X-Selenoid-No-Wait (then 429 at once, as protect/queue.go `Try` answers); each session's video
 * `/video/{id}.mp4` and log `/logs/{id}.log` (GET and HEAD with byte ranges as http.FileServer serves them,
 * DELETE as service.go removes them), downloads `/download/{id}/{file}`, clipboard
 * `/clipboard/{id}` (GET, POST), and the WebSockets `/devtools/{id}/…` and `/vnc/{id}`, which, like
 * golang.org/x/net/websocket's Handler, refuse a handshake without an Origin. Every request is recorded.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface SelenoidRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface SelenoidSession {
  video?: Buffer;
  log?: string;
  downloads: Map<string, string>;
  clipboard: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };

export class FakeSelenoid {
  readonly requests: SelenoidRequest[] = [];
  /** Every session it ever started, by its ID; an ended one keeps its video and log, as Selenoid does. */
  readonly sessions = new Map<string, SelenoidSession>();
  private readonly running = new Set<string>();
  private readonly waiting: (() => void)[] = [];
  private readonly sockets = new WebSocketServer({ noServer: true });
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((error: Error) => res.destroy(error));
  });

  private constructor(private readonly limit: number) {
    this.server.on('upgrade', (req, socket, head) => {
      const path = req.url ?? '';
      this.requests.push({ method: 'UPGRADE', path, headers: req.headers, body: '' });
      const match = /^\/(devtools|vnc)\/([0-9a-f]+)(\/.*)?$/.exec(path);
      if (!req.headers.origin || !match || !this.running.has(match[2] as string)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.sockets.handleUpgrade(req, socket, head, (client) => {
        client.send(match[1] === 'vnc' ? Buffer.from('vnc-data') : `devtools-data ${match[3] ?? ''}`);
        client.on('message', (data) => client.send(`echo ${String(data)}`));
      });
    });
  }

  static async start(limit = 1): Promise<FakeSelenoid> {
    const hub = new FakeSelenoid(limit);
    await new Promise<void>((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
    return hub;
  }

  /** host:port */
  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Sessions running now. */
  get busy(): number {
    return this.running.size;
  }

  newSessionRequests(): SelenoidRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/wd/hub/session');
  }

  async close(): Promise<void> {
    for (const client of this.sockets.clients) client.terminate();
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = Buffer.concat(await req.toArray()).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://selenoid');
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: `${url.pathname}${url.search}`, headers: req.headers, body });
    if (method === 'POST' && url.pathname === '/wd/hub/session') return this.newSession(req, res);
    const session = /^\/wd\/hub\/session\/([0-9a-f]+)$/.exec(url.pathname);
    if (method === 'DELETE' && session) {
      this.end(session[1] as string);
      return json(res, 200, { value: null });
    }
    const file = /^\/(video|logs|download|clipboard)\/([0-9a-f]+)(\.mp4|\.log)?(?:\/([^/]+))?$/.exec(
      url.pathname,
    );
    const known = file && this.sessions.get(file[2] as string);
    if (!file || !known) return notFound(res);
    const [, kind, , extension, name] = file;
    const fileName = `${file[2]}${extension}`;
    if (kind === 'video' && extension === '.mp4' && !name)
      return this.artifact(req, res, known, 'video', fileName);
    if (kind === 'logs' && extension === '.log' && !name)
      return this.artifact(req, res, known, 'log', fileName);
    if (kind === 'download' && !extension && name) {
      const contents = known.downloads.get(decodeURIComponent(name));
      if (contents === undefined) return notFound(res);
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(contents);
      return;
    }
    if (kind === 'clipboard' && !extension && !name) {
      if (method === 'POST') known.clipboard = body;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(known.clipboard);
      return;
    }
    notFound(res);
  }

  private async newSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.running.size >= this.limit) {
      // protect/queue.go: the header's presence, whatever its value, asks for no queueing.
      if (req.headers['x-selenoid-no-wait'] !== undefined) {
        return json(res, 429, { value: { message: 'Too Many Requests' }, status: 13 });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    // Selenoid's session IDs are 32 hex digits (a UUID without dashes, or an MD5).
    const id = randomBytes(16).toString('hex');
    this.running.add(id);
    this.sessions.set(id, {
      video: Buffer.from(`video of ${id}`),
      log: `log of ${id}\n`,
      downloads: new Map([['report.txt', `report of ${id}`]]),
      clipboard: '',
    });
    json(res, 200, {
      value: { sessionId: id, capabilities: { browserName: 'chrome', browserVersion: '156.0' } },
    });
  }

  private end(id: string): void {
    if (!this.running.delete(id)) return;
    this.waiting.shift()?.();
  }

  private artifact(
    req: IncomingMessage,
    res: ServerResponse,
    session: SelenoidSession,
    which: 'video' | 'log',
    file: string,
  ) {
    const contents = session[which];
    if (req.method === 'DELETE') {
      // service.go deleteFileIfExists: http.Error's 404 for a missing file; on success nothing is written (200).
      if (contents === undefined) {
        res
          .writeHead(404, {
            'content-type': 'text/plain; charset=utf-8',
            'x-content-type-options': 'nosniff',
          })
          .end(`Unknown file /opt/selenoid/${which === 'video' ? 'video' : 'logs'}/${file}\n`);
        return;
      }
      delete session[which];
      res.writeHead(200, { 'content-length': 0 }).end();
      return;
    }
    if (contents === undefined) return notFound(res);
    servedFile(
      req,
      res,
      Buffer.from(contents),
      which === 'video' ? 'video/mp4' : 'text/plain; charset=utf-8',
    );
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, JSON_TYPE).end(JSON.stringify(body));
}

/**
 * A file as Go's http.FileServer serves one (net/http fs.go serveContent): Accept-Ranges, one byte range as
 * 206 with Content-Range, a range past the end 416 with the size in Content-Range, else the whole file.
 */
function servedFile(req: IncomingMessage, res: ServerResponse, contents: Buffer, type: string): void {
  const size = contents.length;
  const headers = { 'content-type': type, 'accept-ranges': 'bytes' };
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (range && (range[1] || range[2])) {
    const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start >= size || end < start) {
      res
        .writeHead(416, { ...headers, 'content-range': `bytes */${size}` })
        .end('invalid range: failed to overlap\n');
      return;
    }
    const part = contents.subarray(start, end + 1);
    res
      .writeHead(206, {
        ...headers,
        'content-range': `bytes ${start}-${end}/${size}`,
        'content-length': part.length,
      })
      .end(req.method === 'HEAD' ? undefined : part);
    return;
  }
  res
    .writeHead(200, { ...headers, 'content-length': size })
    .end(req.method === 'HEAD' ? undefined : contents);
}

// Go's http.FileServer answer for a missing file.
function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
}
