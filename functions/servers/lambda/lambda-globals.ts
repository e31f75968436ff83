/**
 * The `awslambda` global that the Lambda Node.js runtime installs before it loads the handler
 * (aws-lambda-nodejs-runtime-interface-client, utils/globals), typed as far as gridgate uses it.
 */

/**
 * What a streaming handler gets as its response stream: not a Writable but a facade over the runtime's
 * HTTP request to the Lambda service, exposing only these members (toWritableResponseStream). So only
 * they are used: no `instanceof Writable`, no `_writableState`, nothing stream.pipeline may reach for.
 */
export interface LambdaResponseStream {
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
  end(callback?: () => void): void;
  destroy(error?: Error): void;
  on(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(
    event: 'drain' | 'close' | 'finish' | 'error',
    listener: (() => void) | ((error: Error) => void),
  ): unknown;
  setContentType(contentType: string): void;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly writableNeedDrain: boolean;
}

/** The JSON prelude an HTTP integration (API Gateway REST streaming, function URL) reads before the body. */
export interface HttpResponsePrelude {
  statusCode: number;
  headers: Record<string, string>;
  /** Set-Cookie values, one per cookie: headers cannot carry several. */
  cookies: string[];
}

export interface LambdaContextLike {
  /** Milliseconds until the runtime ends the invocation. */
  getRemainingTimeInMillis(): number;
  awsRequestId?: string;
}

export type StreamingHandler<Event> = (
  event: Event,
  responseStream: LambdaResponseStream,
  context: LambdaContextLike,
) => Promise<void>;

export interface LambdaRuntimeGlobal {
  /** Marks the handler as streaming (a property on the function); returns the same function. */
  streamifyResponse<Event>(
    handler: StreamingHandler<Event>,
    options?: { highWaterMark?: number },
  ): StreamingHandler<Event>;
  HttpResponseStream: {
    /** Arranges for the prelude and 8 NUL bytes to go out just before the first write. */
    from(stream: LambdaResponseStream, prelude: HttpResponsePrelude): LambdaResponseStream;
  };
}

/** The runtime's global, read when asked (tests install theirs first); a clear error outside Lambda. */
export function lambdaRuntime(): LambdaRuntimeGlobal {
  const runtime = (globalThis as unknown as { awslambda?: LambdaRuntimeGlobal }).awslambda;
  if (!runtime?.streamifyResponse || !runtime.HttpResponseStream) {
    throw new Error(
      'the awslambda global is missing: this handler runs only in the Lambda Node.js runtime (or a test harness that installs it)',
    );
  }
  return runtime;
}
