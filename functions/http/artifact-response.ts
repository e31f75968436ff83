/**
 * An artifact (video, log, last frame) as an HTTP answer: a file on disk streamed with its length and, for a
 * video element seeking, one byte range (RFC 9110 §14); a redirect; or another server's answer passed through.
 */
import { createReadStream } from 'node:fs';
import type { Context } from 'hono';
import type { Artifact } from '../core/artifact-ports';
import { WebDriverError } from '../core/errors';
import { webStreamOf } from './web-stream';

const FILE_HEADERS = {
  'x-content-type-options': 'nosniff',
  // Whose it is was checked for this request: no shared cache may keep it for someone else.
  'cache-control': 'private, no-cache',
};

export function artifactResponse(c: Context, artifact: Artifact): Response {
  if (artifact.kind === 'redirect') {
    return new Response(null, {
      status: 302,
      headers: { location: artifact.location, 'cache-control': 'no-store' },
    });
  }
  if (artifact.kind === 'stream') {
    return new Response(webStreamOf(artifact.body), {
      status: artifact.status,
      headers: artifact.headers,
    });
  }
  const { path, size, contentType, fileName } = artifact;
  const headers: Record<string, string> = {
    ...FILE_HEADERS,
    'content-type': contentType,
    'content-disposition': `inline; filename="${fileName}"`,
    'accept-ranges': 'bytes',
  };
  const range = byteRange(c.req.header('range'), size);
  if (range === 'unsatisfiable') {
    throw new WebDriverError('invalid argument', `the range is outside the file's ${size} bytes`, {
      status: 416,
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  const [start, end] = range ?? [0, size - 1];
  headers['content-length'] = String(Math.max(0, end - start + 1));
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  if (c.req.method === 'HEAD' || size === 0) return c.body(null, range ? 206 : 200, headers);
  // A live log keeps growing: exactly the bytes counted now are sent.
  const stream = createReadStream(path, { start, end });
  return c.body(webStreamOf(stream), range ? 206 : 200, headers);
}

/** One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; undefined (the whole file) for none or several. */
export function byteRange(
  header: string | undefined,
  size: number,
): [number, number] | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return end < start ? undefined : [start, end];
}
