/**
 * A Node stream as a web stream for a Response, read only as the reader asks, and destroyed when the reader
 * cancels (a client that goes away, a video element seeking elsewhere). Readable.toWeb (Node 20) can still
 * enqueue a chunk the Node stream had buffered after the cancel, which throws "Controller is already closed"
 * outside any caller: an uncaught exception that would end the server.
 */
import type { Readable } from 'node:stream';

export function webStreamOf(body: Readable): ReadableStream<Uint8Array> {
  // Its errors reach the reader through the iteration (a stream that failed fails the next pull); one before
  // the first pull (a file removed before it was opened) must not go unheard, an uncaught exception.
  body.on('error', () => undefined);
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  return new ReadableStream<Uint8Array>(
    {
      // A chunk that arrives after a cancel fails this pull, which a cancelled stream ignores.
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      // Destroyed even when never read (ending an iteration not begun does nothing), so an upstream answer
      // is not left holding its connection; being cut short (undici: "Request aborted") is expected here.
      async cancel() {
        await chunks.return?.().catch(() => undefined);
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
