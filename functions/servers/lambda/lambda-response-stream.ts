/**
 * Writes a web Response into a Lambda response stream: the HTTP prelude (status, headers, cookies)
 * through awslambda.HttpResponseStream, then the body chunk by chunk as it arrives, waiting for
 * 'drain' whenever the stream says its buffer is full (DESIGN invariant 6: never buffered).
 */
import type { HttpResponsePrelude, LambdaResponseStream, LambdaRuntimeGlobal } from './lambda-globals';

/** The client went away (or the runtime's connection broke) before the whole answer was written. */
export class ResponseStreamClosed extends Error {
  constructor(cause?: unknown) {
    super('the response stream closed before the answer was written', { cause });
    this.name = 'ResponseStreamClosed';
  }
}

export function responsePrelude(response: Response): HttpResponsePrelude {
  const headers: Record<string, string> = {};
  // Headers joins repeated values with ", ", which is right for every header but Set-Cookie.
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  return { statusCode: response.status, headers, cookies: response.headers.getSetCookie() };
}

export async function writeResponse(
  runtime: LambdaRuntimeGlobal,
  responseStream: LambdaResponseStream,
  response: Response,
): Promise<void> {
  const stream = runtime.HttpResponseStream.from(responseStream, responsePrelude(response));
  let wrote = false;
  if (response.body) {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      if (chunk.byteLength === 0) continue;
      if (stream.destroyed || stream.writableEnded) throw new ResponseStreamClosed();
      wrote = true;
      if (!stream.write(chunk)) await drained(stream);
    }
  }
  // The runtime sends the prelude just before the first write, and only then: an empty body still
  // needs one write, or the status and headers never go out. (end() with data would skip the hook.)
  if (!wrote) stream.write('');
  await finished(stream);
}

/** Resolves on 'drain'; rejects when the stream closes or fails first. */
function drained(stream: LambdaResponseStream): Promise<void> {
  return untilEvent(stream, 'drain');
}

function finished(stream: LambdaResponseStream): Promise<void> {
  const done = untilEvent(stream, 'finish');
  stream.end();
  return done;
}

function untilEvent(stream: LambdaResponseStream, event: 'drain' | 'finish'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed) {
      if (event === 'finish' && stream.writableFinished) resolve();
      else reject(new ResponseStreamClosed());
      return;
    }
    const cleanup = () => {
      stream.off(event, onEvent);
      stream.off('close', onClose);
      stream.off('error', onError);
    };
    const onEvent = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      // A stream may close right after finishing; only a close before it is a lost client.
      if (event === 'finish' && stream.writableFinished) resolve();
      else reject(new ResponseStreamClosed());
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new ResponseStreamClosed(error));
    };
    stream.on(event, onEvent);
    stream.on('close', onClose);
    stream.on('error', onError);
  });
}
