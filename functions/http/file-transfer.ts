/**
 * Selenium Grid 4's file transfer, answered by gridgate for sessions whose launcher serves it (local pools,
 * whose chromedriver does not): `POST /se/file` (upload) and `GET`/`POST`/`DELETE /se/files` (managed
 * downloads). HTTP translation only: the launcher's FileTransfer does the work. Sessions of other pools never
 * come here; their nodes answer these paths through the proxy.
 */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { isObject } from '../core/capabilities';
import { invalidArgument } from '../core/errors';
import { parseJsonBody } from '../core/json-body';
import type { DownloadedFileReader, FileTransfer } from '../core/ports';
import { readText } from './request-body';
import { webStreamOf } from './web-stream';
import { WEBDRIVER_HEADERS, webDriverJson } from './webdriver-json';

/** What the handlers need of the session: whose browser, and the limits in force now. */
export interface FileTransferRequest {
  files: FileTransfer;
  handle: string;
  maxBodySize: number;
  maxUploadSize: number;
}

export type FileTransferHandler = (c: Context, request: FileTransferRequest) => Promise<Response>;

// Java's client (4.48) asks for the file itself rather than a zip in JSON.
const OCTET_STREAM = 'application/octet-stream';

/** POST /session/{id}/se/file {"file": <base64 zip of one file>} → {"value": <the file's path>}. */
export async function uploadFile(c: Context, request: FileTransferRequest) {
  const body = await jsonBody(c, request.maxBodySize);
  if (typeof body.file !== 'string' || body.file === '')
    throw invalidArgument('an upload needs {"file": <the base64 of a zip holding one file>}');
  const zip = strictBase64(body.file);
  const path = await request.files.upload(request.handle, zip, request.maxUploadSize);
  return webDriverJson(c, { value: path });
}

/** GET /session/{id}/se/files → {"value": {"names": […], "files": [{name, creationTime, lastModifiedTime, size}]}}. */
export async function listDownloadedFiles(c: Context, request: FileTransferRequest) {
  const files = await request.files.downloads(request.handle);
  return webDriverJson(c, { value: { names: files.map((file) => file.name), files } });
}

/**
 * POST /session/{id}/se/files {"name"} → {"value": {"filename", "file", "contents": <base64 zip>}}, or the
 * file's bytes when the client accepts application/octet-stream. Streamed either way: a download can be large.
 */
export async function downloadFile(c: Context, request: FileTransferRequest) {
  const body = await jsonBody(c, request.maxBodySize);
  if (typeof body.name !== 'string' || body.name === '')
    throw invalidArgument('a download needs {"name": <the name of a downloaded file>}');
  const download = await request.files.download(request.handle, body.name);
  if (c.req.header('accept')?.toLowerCase().includes(OCTET_STREAM)) {
    return c.body(webStreamOf(download.bytes()), 200, {
      'content-type': OCTET_STREAM,
      'content-length': String(download.file.size),
      'last-modified': new Date(download.file.lastModifiedTime).toUTCString(),
    });
  }
  return c.body(webStreamOf(Readable.from(zippedAnswer(download))), 200, {
    ...WEBDRIVER_HEADERS,
  });
}

/** DELETE /session/{id}/se/files → {"value": null}. */
export async function deleteDownloadedFiles(c: Context, request: FileTransferRequest) {
  await request.files.deleteDownloads(request.handle);
  return webDriverJson(c, { value: null });
}

async function jsonBody(c: Context, limit: number): Promise<Record<string, unknown>> {
  const body = parseJsonBody(await readText(c.req.raw, limit), 'the body');
  if (!isObject(body)) throw invalidArgument('the body must be a JSON object');
  return body;
}

/** Buffer.from(…, 'base64') skips what is not base64; an upload that is not base64 is refused instead. */
function strictBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw invalidArgument('"file" is not base64');
  return Buffer.from(compact, 'base64');
}

/**
 * The JSON answer with the zip's base64 written as the zip is made, three bytes to four characters; in
 * bytes, since a web Response carries only bytes (a string chunk fails it).
 */
async function* zippedAnswer(download: DownloadedFileReader): AsyncGenerator<Buffer> {
  const { file } = download;
  const bytesOf = (part: string) => Buffer.from(part, 'utf8');
  yield bytesOf(
    `{"value":{"filename":${JSON.stringify(file.name)},"file":${JSON.stringify(file)},"contents":"`,
  );
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of download.zipped()) {
    const bytes = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const whole = bytes.length - (bytes.length % 3);
    yield bytesOf(bytes.subarray(0, whole).toString('base64'));
    carry = bytes.subarray(whole);
  }
  yield bytesOf(`${carry.toString('base64')}"}}`);
}
