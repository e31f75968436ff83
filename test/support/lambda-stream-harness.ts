/**
 * The Lambda Node.js runtime's response streaming, in-process: a faithful `globalThis.awslambda`
 * (streamifyResponse, HttpResponseStream.from) over a response stream built as the runtime builds it
 * (aws-lambda-nodejs-runtime-interface-client: stream/response-stream.ts, http-response-stream.ts,
 * runtime/streaming-invoke-processor.ts), and a parser that reads back what the function wrote the
 * way the service reads it: a JSON prelude, 8 NUL bytes, then the body.
 */
import { Writable } from 'node:stream';
import type {
  HttpResponsePrelude,
  LambdaResponseStream,
  LambdaRuntimeGlobal,
  StreamingHandler,
} from '../../functions/servers/lambda/lambda-globals';

// The runtime's constants (stream/constants.ts, function/user-function-loader).
export const METADATA_PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const DELIMITER_LEN = 8;
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HANDLER_HIGHWATERMARK = Symbol.for('aws.lambda.runtime.handler.streaming.highWaterMark');
const STREAM_RESPONSE = 'response';

// The members the runtime's facade exposes (toWritableResponseStream); nothing else reaches the handler.
const WRITABLE_METHODS = [
  'cork',
  'destroy',
  'end',
  'uncork',
  'write',
  'addListener',
  'on',
  'once',
  'prependListener',
  'prependOnceListener',
  'off',
  'removeListener',
  'removeAllListeners',
  'setMaxListeners',
  'getMaxListeners',
  'listeners',
  'rawListeners',
  'listenerCount',
  'eventNames',
  'emit',
  'setContentType',
] as const;
const PROPS_READ_WRITE = ['destroyed', '_onBeforeFirstWrite'] as const;
const PROPS_READ_ONLY = [
  'writableFinished',
  'writableObjectMode',
  'writableEnded',
  'writableNeedDrain',
  'writableHighWaterMark',
  'writableCorked',
  'writableLength',
  'writable',
] as const;

type FirstWriteHook = (write: (chunk: string | Uint8Array) => boolean) => void;

/**
 * Stands in for the runtime's HTTP request to the Lambda service: a Writable whose every write is one
 * chunk on the wire, acknowledged a turn of the event loop later (so a fast writer meets backpressure),
 * with the content-type header the runtime sets on that request.
 */
class ServiceConnection extends Writable {
  readonly chunks: Buffer[] = [];
  contentType = DEFAULT_CONTENT_TYPE;
  setContentType!: (contentType: string) => void;
  _onBeforeFirstWrite?: FirstWriteHook;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    this.chunks.push(Buffer.from(chunk));
    setImmediate(callback);
  }
}

/** As createResponseStream: content type settable until the first write, the prelude hook run on it. */
function createResponseStream(highWaterMark: number): {
  connection: ServiceConnection;
  stream: LambdaResponseStream;
} {
  const connection = new ServiceConnection({ highWaterMark });
  let status: 'ready' | 'write_called' = 'ready';
  // The runtime listens for errors on its request itself, so a destroyed stream never throws unheard.
  connection.on('error', () => {});
  connection.setContentType = (contentType: string) => {
    if (status !== 'ready') throw new Error('Cannot set content-type, too late.');
    connection.contentType = contentType;
  };
  const origWrite = connection.write.bind(connection) as (...args: unknown[]) => boolean;
  connection.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    let data = chunk;
    if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk) && !(chunk instanceof Uint8Array)) {
      data = JSON.stringify(chunk);
    }
    if (status === 'ready' && typeof connection._onBeforeFirstWrite === 'function') {
      connection._onBeforeFirstWrite((ch) => origWrite(ch));
    }
    const ret = origWrite(data, encoding, callback);
    if (status === 'ready') status = 'write_called';
    return ret;
  }) as Writable['write'];
  const facade = {} as Record<string, unknown>;
  const inner = connection as unknown as Record<string, unknown>;
  for (const method of WRITABLE_METHODS) {
    facade[method] = (inner[method] as (...args: unknown[]) => unknown).bind(connection);
  }
  for (const prop of PROPS_READ_WRITE) {
    Object.defineProperty(facade, prop, {
      get: () => inner[prop],
      set: (value) => {
        inner[prop] = value;
      },
    });
  }
  for (const prop of PROPS_READ_ONLY) Object.defineProperty(facade, prop, { get: () => inner[prop] });
  return { connection, stream: facade as unknown as LambdaResponseStream };
}

/** The runtime's global, as utils/globals.ts installs it. */
export const harnessRuntime: LambdaRuntimeGlobal = {
  streamifyResponse(handler, options) {
    const marked = handler as typeof handler & Record<symbol, unknown>;
    marked[HANDLER_STREAMING] = STREAM_RESPONSE;
    if (typeof options?.highWaterMark === 'number') marked[HANDLER_HIGHWATERMARK] = options.highWaterMark;
    return handler;
  },
  HttpResponseStream: {
    from(stream, prelude) {
      stream.setContentType(METADATA_PRELUDE_CONTENT_TYPE);
      const metadata = JSON.stringify(prelude);
      (stream as unknown as { _onBeforeFirstWrite: FirstWriteHook })._onBeforeFirstWrite = (write) => {
        write(metadata);
        write(new Uint8Array(DELIMITER_LEN));
      };
      return stream;
    },
  },
};

/** Installs the runtime's global for the tests of one file; returns the function that removes it. */
export function installLambdaRuntime(): () => void {
  const holder = globalThis as unknown as { awslambda?: LambdaRuntimeGlobal };
  const previous = holder.awslambda;
  holder.awslambda = harnessRuntime;
  return () => {
    holder.awslambda = previous;
  };
}

export interface Invocation {
  /** The HTTP answer as the front door would send it; undefined when no prelude was written. */
  prelude?: HttpResponsePrelude;
  statusCode?: number;
  headers: Record<string, string>;
  cookies: string[];
  /** Body chunks as they were written, one per write after the delimiter. */
  chunks: Buffer[];
  body: Buffer;
  /** The invocation failed (the runtime then marks the stream broken with error trailers). */
  error?: unknown;
  /** The runtime's verdict when the handler returned without ending the stream. */
  unfinished?: boolean;
  /** The function ran past its timeout: the runtime would have ended it there. */
  timedOut: boolean;
}

export interface InvokeOptions {
  /** The function's remaining time when the invocation starts (getRemainingTimeInMillis). Default 15 min. */
  remainingMs?: number;
  /** The runtime connection's buffer before write() says to wait. Default 16 KiB, Node's own. */
  highWaterMark?: number;
}

export interface RunningInvocation {
  /** The client hangs up: the connection to the service breaks, as when the front door drops it. */
  disconnect(): void;
  /** Bytes the handler has written so far, prelude included. */
  written(): number;
  result: Promise<Invocation>;
}

/** Invokes a streaming handler as StreamingInvokeProcessor does, stopping it at its timeout. */
export function startInvocation<Event>(
  handler: StreamingHandler<Event>,
  event: Event,
  options: InvokeOptions = {},
): RunningInvocation {
  if ((handler as unknown as Record<symbol, unknown>)[HANDLER_STREAMING] !== STREAM_RESPONSE) {
    throw new Error('the handler is not marked as streaming (awslambda.streamifyResponse)');
  }
  const { connection, stream } = createResponseStream(options.highWaterMark ?? 16 * 1024);
  const deadlineAt = Date.now() + (options.remainingMs ?? 15 * 60_000);
  const context = {
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    getRemainingTimeInMillis: () => Math.max(0, deadlineAt - Date.now()),
  };
  const run = async (): Promise<Pick<Invocation, 'error' | 'unfinished'>> => {
    try {
      const returned = handler(event, stream, context);
      if (typeof (returned as Promise<void> | undefined)?.then !== 'function') {
        throw new Error('Streaming does not support non-async handlers.');
      }
      await returned;
      if (!connection.writableFinished && !connection.destroyed) {
        await new Promise((resolve) => connection.once('finish', resolve).once('close', resolve));
      }
      return connection.writableFinished ? {} : { unfinished: true };
    } catch (error) {
      // failResponseStream: error trailers, then the stream is ended.
      if (!connection.destroyed && !connection.writableEnded) connection.end();
      return { error };
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), Math.max(0, deadlineAt - Date.now()));
  });
  const result = Promise.race([run(), timeout]).then((outcome) => {
    clearTimeout(timer);
    const timedOut = outcome === 'timed out';
    return { ...parseWritten(connection), ...(timedOut ? {} : outcome), timedOut };
  });
  return {
    disconnect: () => connection.destroy(new Error('the client disconnected')),
    written: () => connection.chunks.reduce((total, chunk) => total + chunk.length, 0),
    result,
  };
}

export function invoke<Event>(
  handler: StreamingHandler<Event>,
  event: Event,
  options: InvokeOptions = {},
): Promise<Invocation> {
  return startInvocation(handler, event, options).result;
}

/**
 * Reads what was written as the service does for the HTTP integration content type: JSON up to the
 * first 8 NUL bytes, then the body. Without that content type there is no prelude.
 */
function parseWritten(connection: ServiceConnection): Omit<Invocation, 'error' | 'unfinished' | 'timedOut'> {
  const all = Buffer.concat(connection.chunks);
  if (connection.contentType !== METADATA_PRELUDE_CONTENT_TYPE) {
    return { headers: {}, cookies: [], chunks: connection.chunks, body: all };
  }
  const delimiter = all.indexOf(Buffer.alloc(DELIMITER_LEN));
  if (delimiter < 0) return { headers: {}, cookies: [], chunks: [], body: Buffer.alloc(0) };
  const prelude = JSON.parse(all.subarray(0, delimiter).toString('utf8')) as HttpResponsePrelude;
  // Keep the write boundaries of the body: they show whether it was streamed or sent in one piece.
  const chunks: Buffer[] = [];
  let offset = 0;
  const bodyStart = delimiter + DELIMITER_LEN;
  for (const chunk of connection.chunks) {
    const end = offset + chunk.length;
    if (end > bodyStart) chunks.push(chunk.subarray(Math.max(0, bodyStart - offset)));
    offset = end;
  }
  return {
    prelude,
    statusCode: prelude.statusCode,
    headers: prelude.headers ?? {},
    cookies: prelude.cookies ?? [],
    chunks: chunks.filter((chunk) => chunk.length > 0),
    body: all.subarray(bodyStart),
  };
}
