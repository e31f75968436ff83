/**
 * The Lambda Runtime API (AWS Lambda developer guide, "Using the Lambda runtime API for custom
 * runtimes"), as the service serves it to a runtime inside an execution environment, on 127.0.0.1:
 * - GET  /2018-06-01/runtime/invocation/next: long-polls for the next event; answers with the event as
 *   the body and Lambda-Runtime-Aws-Request-Id, -Deadline-Ms, -Invoked-Function-Arn, -Trace-Id.
 * - POST /2018-06-01/runtime/invocation/{id}/response: the answer. A streaming function sends it with
 *   `Lambda-Runtime-Function-Response-Mode: streaming`, chunked, and announces the trailers
 *   Lambda-Runtime-Function-Error-Type and -Body, which it sends when it fails mid-stream ("Response
 *   streaming for custom runtimes"). An HTTP integration's stream starts with a JSON prelude and 8 NULs.
 * - POST /2018-06-01/runtime/invocation/{id}/error and /2018-06-01/runtime/init/error: failures, with
 *   the type in Lambda-Runtime-Function-Error-Type.
 * Each invocation is recorded as the bytes arrived: every chunk, the trailers, the time of the answer.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const BASE = '/2018-06-01/runtime';
const HTTP_INTEGRATION = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = Buffer.alloc(8);
const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:gridgate-router';

export interface RuntimeError {
  type: string;
  /** The error's JSON ({errorType, errorMessage, trace}), decoded from base64 when sent as a trailer. */
  body: unknown;
}

export interface RuntimeInvocation {
  requestId: string;
  /** Epoch ms the runtime was given as Lambda-Runtime-Deadline-Ms. */
  deadlineMs: number;
  /** The headers of the runtime's /response request (response mode, content type, trailer names). */
  responseHeaders: IncomingHttpHeaders;
  /** The response body as it arrived, one entry per chunk read off the connection. */
  chunks: Buffer[];
  raw: Buffer;
  /** Trailers sent after the body (a streamed response that failed mid-way). */
  trailers: Record<string, string | undefined>;
  /** For an HTTP integration response: the prelude before the 8 NULs. */
  prelude?: { statusCode?: number; headers?: Record<string, string>; cookies?: string[] };
  /** What follows the prelude and its delimiter (the raw body for other responses). */
  body: Buffer;
  /** The invocation failed: /error, or error trailers on the stream. */
  error?: RuntimeError;
  /** When the answer was complete (epoch ms); after deadlineMs means the service would have cut it. */
  finishedAt: number;
  /** No complete answer by the deadline (and a second's grace): the service ended the invocation. */
  timedOut: boolean;
}

interface Pending {
  requestId: string;
  event: unknown;
  deadlineMs: number;
  resolve: (invocation: RuntimeInvocation) => void;
}

export class LambdaRuntimeApi {
  /** Every /next the runtime made: one per invocation it was ready for, plus the one waiting now. */
  nextCalls = 0;
  readonly initErrors: RuntimeError[] = [];
  readonly invocations: RuntimeInvocation[] = [];
  private readonly queue: Pending[] = [];
  private readonly inFlight = new Map<string, Pending>();
  private waiting: ServerResponse | undefined;
  // No timeouts of Node's own: a streamed answer may stay silent (its head unsent) while the function
  // waits, and a runtime's connection stays open between invocations.
  private readonly server = createServer(
    { requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 },
    (req, res) => {
      this.handle(req, res).catch((error: Error) => res.destroy(error));
    },
  );

  static async start(): Promise<LambdaRuntimeApi> {
    const api = new LambdaRuntimeApi();
    api.server.keepAliveTimeout = 0;
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  /** AWS_LAMBDA_RUNTIME_API: host and port. */
  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Hands the event to the runtime (now, or when it next asks) with `timeoutMs` left; resolves with its answer. */
  invoke(event: unknown, timeoutMs = 60_000): Promise<RuntimeInvocation> {
    return new Promise((resolve) => {
      const pending: Pending = {
        requestId: randomUUID(),
        event,
        deadlineMs: Date.now() + timeoutMs,
        resolve,
      };
      // Past its deadline the service gives up on an invocation: it is recorded as timed out, with
      // nothing received, and an answer that comes later is refused.
      const timer = setTimeout(() => {
        const queued = this.queue.indexOf(pending);
        if (queued >= 0) this.queue.splice(queued, 1);
        else if (!this.inFlight.delete(pending.requestId)) return;
        resolve(timedOut(pending));
      }, timeoutMs + 1000);
      pending.resolve = (invocation) => {
        clearTimeout(timer);
        resolve(invocation);
      };
      this.queue.push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private dispatch(): void {
    const res = this.waiting;
    const next = this.queue[0];
    if (!res || !next) return;
    this.queue.shift();
    this.waiting = undefined;
    this.inFlight.set(next.requestId, next);
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'lambda-runtime-aws-request-id': next.requestId,
        'lambda-runtime-deadline-ms': String(next.deadlineMs),
        'lambda-runtime-invoked-function-arn': FUNCTION_ARN,
        'lambda-runtime-trace-id': `Root=1-${Date.now().toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)};Sampled=0`,
      })
      .end(JSON.stringify(next.event));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === `${BASE}/invocation/next`) {
      this.nextCalls++;
      this.waiting = res;
      this.dispatch();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if (req.method === 'POST' && url === `${BASE}/init/error`) {
      this.initErrors.push({
        type: String(req.headers['lambda-runtime-function-error-type']),
        body: json(raw),
      });
      res.writeHead(202).end('{"status":"OK"}');
      return;
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    const pending = match && this.inFlight.get(decodeURIComponent(match[1] as string));
    if (req.method !== 'POST' || !match || !pending) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errorType":"InvalidRequestID"}');
      return;
    }
    this.inFlight.delete(pending.requestId);
    res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
    const invocation = recorded(pending, req, chunks, raw, match[2] === 'error');
    this.invocations.push(invocation);
    pending.resolve(invocation);
  }
}

function recorded(
  pending: Pending,
  req: IncomingMessage,
  chunks: Buffer[],
  raw: Buffer,
  failed: boolean,
): RuntimeInvocation {
  const trailers = { ...req.trailers };
  const trailerType = trailers['lambda-runtime-function-error-type'];
  const trailerBody = trailers['lambda-runtime-function-error-body'];
  let error: RuntimeError | undefined;
  if (failed) {
    error = { type: String(req.headers['lambda-runtime-function-error-type']), body: json(raw) };
  } else if (trailerType) {
    error = { type: trailerType, body: json(Buffer.from(trailerBody ?? '', 'base64')) };
  }
  const integration = req.headers['content-type'] === HTTP_INTEGRATION;
  const split = integration ? raw.indexOf(DELIMITER) : -1;
  return {
    requestId: pending.requestId,
    deadlineMs: pending.deadlineMs,
    responseHeaders: req.headers,
    chunks,
    raw,
    trailers,
    ...(split >= 0 ? { prelude: json(raw.subarray(0, split)) as RuntimeInvocation['prelude'] } : {}),
    body: split >= 0 ? raw.subarray(split + DELIMITER.length) : raw,
    ...(error ? { error } : {}),
    finishedAt: Date.now(),
    timedOut: false,
  };
}

function timedOut(pending: Pending): RuntimeInvocation {
  const nothing = Buffer.alloc(0);
  return {
    requestId: pending.requestId,
    deadlineMs: pending.deadlineMs,
    responseHeaders: {},
    chunks: [],
    raw: nothing,
    trailers: {},
    body: nothing,
    finishedAt: Date.now(),
    timedOut: true,
  };
}

function json(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes.toString('utf8');
  }
}
