/**
 * The router Lambda's streaming handler: event → web Request → app.fetch → Response written into the
 * response stream. Behind API Gateway REST (ResponseTransferMode STREAM, payload 1.0) and a function
 * URL in RESPONSE_STREAM mode (payload 2.0) alike.
 *
 * Why not hono/aws-lambda's streamHandle: it is deprecated (removed in Hono 5; its successor
 * @hono/aws-lambda is not published), it answers 200 with a text body when anything throws before the
 * prelude, it never aborts the app's work when the client disconnects, and it knows no deadline. This
 * adapter is those four things and nothing else; request conversion follows Hono's processors. It also
 * refuses bodies past what a Lambda invocation can carry (lambda-body-limit.ts), whatever the config says.
 */
import { invalidArgument, WebDriverError } from '../../core/errors';
import { WEBDRIVER_HEADERS } from '../../http/webdriver-json';
import { LAMBDA_MAX_BODY_BYTES, lambdaBodyTooLarge } from './lambda-body-limit';
import { type LambdaContextLike, lambdaRuntime, type StreamingHandler } from './lambda-globals';
import { isFunctionUrlEvent, type LambdaHttpEvent, toRequest } from './lambda-request';
import { ResponseStreamClosed, writeResponse } from './lambda-response-stream';

/** What the app finds in `c.env` for a request served by Lambda. */
export interface LambdaBindings {
  event: LambdaHttpEvent;
  lambdaContext: LambdaContextLike;
  /** Epoch ms by which the answer must be under way: the invocation's end less the safety margin. */
  deadline: number;
  /** Says whose time `deadline` is, for error messages. */
  deadlineSource: string;
  /** How long the front door lets the answer sit silent, when it limits that (API Gateway REST). */
  silenceLimit?: { ms: number; source: string };
}

export type FetchLike = (request: Request, env: LambdaBindings) => Response | Promise<Response>;

export interface StreamingHandlerOptions {
  /**
   * Kept free before the Lambda timeout for the answer to go out and for stopping whatever the
   * request started (a browser task, its quota slot). Default 3 s.
   */
  safetyMarginMs?: number;
  /** Told of failures the client cannot hear of in full: the app's own error handling failing, a cut body. */
  onError?: (error: unknown) => void;
  /**
   * How long API Gateway REST lets a streamed answer go without a byte. Default 5 minutes (a Regional
   * REST API with response streaming; the stack makes no other kind). Function URLs have no such limit.
   */
  restSilenceMs?: number;
}

const DEFAULT_SAFETY_MARGIN_MS = 3000;
const REST_STREAMING_IDLE_MS = 5 * 60_000;

export function streamingHandler(
  fetch: FetchLike,
  options: StreamingHandlerOptions = {},
): StreamingHandler<LambdaHttpEvent> {
  const runtime = lambdaRuntime();
  const margin = options.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS;
  return runtime.streamifyResponse<LambdaHttpEvent>(async (event, responseStream, context) => {
    // A streaming Lambda runs on after its client disconnects; aborting the Request's signal is how
    // the app hears of it (new-session stops the browser it was starting, commands stop forwarding).
    const client = new AbortController();
    const gone = () => {
      if (!responseStream.writableFinished) client.abort(new ResponseStreamClosed());
    };
    responseStream.on('close', gone);
    responseStream.on('error', gone);
    try {
      const response = await answer(fetch, event, client.signal, options, {
        event,
        lambdaContext: context,
        deadline: Date.now() + context.getRemainingTimeInMillis() - margin,
        deadlineSource: 'the Lambda function timeout',
        ...(isFunctionUrlEvent(event)
          ? {}
          : { silenceLimit: { ms: options.restSilenceMs ?? REST_STREAMING_IDLE_MS, source: 'API Gateway' } }),
      });
      await writeResponse(runtime, responseStream, response);
    } catch (error) {
      // Mid-answer nothing more can be said: the status is out. Failing the invocation makes the
      // runtime mark the stream as broken, so a cut body never looks complete.
      options.onError?.(error);
      if (!client.signal.aborted) client.abort(error);
      throw error;
    } finally {
      responseStream.off('close', gone);
      responseStream.off('error', gone);
    }
  });
}

/** The app's answer; an event no Request can be made of is the client's error, in W3C form. */
async function answer(
  fetch: FetchLike,
  event: LambdaHttpEvent,
  signal: AbortSignal,
  options: StreamingHandlerOptions,
  env: LambdaBindings,
): Promise<Response> {
  let request: Request;
  try {
    request = toRequest(event, signal);
  } catch (error) {
    return errorResponse(invalidArgument(`cannot read this request: ${(error as Error).message}`));
  }
  const size = Number(request.headers.get('content-length') ?? 0);
  if (size > LAMBDA_MAX_BODY_BYTES) return errorResponse(lambdaBodyTooLarge(size));
  try {
    return await fetch(request, env);
  } catch (error) {
    // The app answers its own errors (onError); reaching here means that failed too. Still W3C, never 200.
    options.onError?.(error);
    return errorResponse(new WebDriverError('unknown error', 'gridgate failed to handle this request'));
  }
}

function errorResponse(error: WebDriverError): Response {
  return Response.json(error.toBody(), {
    status: error.status,
    headers: { ...WEBDRIVER_HEADERS, ...error.headers },
  });
}
