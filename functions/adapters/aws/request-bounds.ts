/**
 * The time bounds every AWS SDK client on gridgate's request path is made with. The SDK sets none itself:
 * a connection that hangs rather than refusing holds its caller for the socket's idle default (300 s) times
 * three attempts, and a new session waiting on ECS that long has outlived any client's patience. Each
 * attempt gets CONNECT_TIMEOUT_MS to connect and `requestTimeoutMs` until the answer's headers; the SDK
 * retries a TimeoutError (it is transient) and the caller then fails with a clear error.
 */
/** AWS endpoints in the Region answer a connection in milliseconds; one that takes this long is not coming. */
export const CONNECT_TIMEOUT_MS = 2000;
/** A control-plane call (RunTask places a task before it answers) takes a few seconds at most. */
export const CONTROL_REQUEST_TIMEOUT_MS = 10_000;

/** An SDK client's `requestHandler` options (the Node handler's) that set its bounds. */
export interface RequestBounds {
  connectionTimeout: number;
  requestTimeout: number;
  throwOnRequestTimeout: boolean;
}

/** The `requestHandler` option of an SDK client: these bounds, thrown as TimeoutError when passed. */
export function boundedRequests(requestTimeoutMs = CONTROL_REQUEST_TIMEOUT_MS): RequestBounds {
  return {
    connectionTimeout: CONNECT_TIMEOUT_MS,
    requestTimeout: requestTimeoutMs,
    // Without it the SDK only warns when requestTimeout passes and goes on waiting.
    throwOnRequestTimeout: true,
  };
}
