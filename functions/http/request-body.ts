/** Request bodies under the configured size limit: refused up front by Content-Length, or cut off while streaming. */
import { Transform } from 'node:stream';
import { invalidArgument, type WebDriverError } from '../core/errors';

export function bodyTooLarge(limit: number): WebDriverError {
  return invalidArgument(`request body is larger than this grid accepts (${limit} bytes)`, { status: 413 });
}

/** Throws 413 when the declared length is over the limit. */
export function checkDeclaredLength(contentLength: string | null | undefined, limit: number): void {
  if (contentLength && Number(contentLength) > limit) throw bodyTooLarge(limit);
}

/** A pass-through that fails once more than `limit` bytes went by (bodies sent without a Content-Length). */
export function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      callback(seen > limit ? bodyTooLarge(limit) : null, chunk);
    },
  });
}

/** Reads a whole (small) body as text, never more than `limit` bytes of it. */
export async function readText(request: Request, limit: number): Promise<string> {
  checkDeclaredLength(request.headers.get('content-length'), limit);
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let seen = 0;
  for await (const chunk of request.body) {
    seen += chunk.length;
    if (seen > limit) throw bodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
