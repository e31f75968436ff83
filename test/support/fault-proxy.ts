/**
 * An HTTP proxy on 127.0.0.1 between a DynamoDB client and a DynamoDB-compatible server that injects
 * the faults a real store shows: a dropped connection, a slow answer, a 500, a throttling 400 in
 * DynamoDB's own JSON error shape, an answer cut in the middle. Each request is judged by `fault`, which
 * the test changes as it goes; every fault injected is counted by kind.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  | 'pass'
  /** The connection is closed before anything is answered (ECONNRESET at the client). */
  | 'drop'
  /** Forwarded, then answered after `delayMs` (past the client's request timeout, it gives up first). */
  | 'delay'
  /** DynamoDB's InternalServerError (500). */
  | 'error'
  /** 400 ThrottlingException, as DynamoDB answers a request rate it will not take. */
  | 'throttle'
  /** 400 ProvisionedThroughputExceededException, as a table over its capacity answers. */
  | 'throughput'
  /** Forwarded (so the write is applied), then the answer cut after half its body. */
  | 'cut';

// The JSON 1.0 protocol's error shape: `__type` names the error, as DynamoDB sends it.
const ERROR_BODIES: Record<
  'error' | 'throttle' | 'throughput',
  { status: number; type: string; message: string }
> = {
  error: { status: 500, type: 'InternalServerError', message: 'Internal server error' },
  throttle: {
    status: 400,
    type: 'ThrottlingException',
    message: 'Rate of requests exceeds the allowed throughput.',
  },
  throughput: {
    status: 400,
    type: 'ProvisionedThroughputExceededException',
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  },
};

export class FaultProxy {
  /** Decides each request's fault; 'pass' by default. */
  fault: () => Fault = () => 'pass';
  delayMs = 6000;
  readonly injected: Record<Fault, number> = {
    pass: 0,
    drop: 0,
    delay: 0,
    error: 0,
    throttle: 0,
    throughput: 0,
    cut: 0,
  };
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly target: URL) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(targetEndpoint: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(new URL(targetEndpoint));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const fault = this.fault();
    this.injected[fault]++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (fault === 'drop') {
        req.socket.destroy();
        return;
      }
      if (fault === 'error' || fault === 'throttle' || fault === 'throughput') {
        const { status, type, message } = ERROR_BODIES[fault];
        const text = JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message });
        res.writeHead(status, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': 'fault-proxy',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
        return;
      }
      this.forward(req, body, (status, headers, answer) => {
        if (fault === 'cut') {
          res.writeHead(status, headers);
          res.write(answer.subarray(0, Math.floor(answer.length / 2)));
          res.socket?.destroy();
          return;
        }
        const send = () => {
          if (!res.destroyed) res.writeHead(status, headers).end(answer);
        };
        if (fault !== 'delay') return send();
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send();
        }, this.delayMs);
        this.timers.add(timer);
      });
    });
  }

  /** Sends the request on to the server and hands over its whole answer. */
  private forward(
    req: IncomingMessage,
    body: Buffer,
    answered: (status: number, headers: Record<string, string | string[] | undefined>, body: Buffer) => void,
  ): void {
    const upstream = request(
      {
        host: this.target.hostname,
        port: this.target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: this.target.host },
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => answered(answer.statusCode ?? 502, answer.headers, Buffer.concat(parts)));
      },
    );
    upstream.on('error', () => req.socket.destroy());
    upstream.end(body);
  }
}
