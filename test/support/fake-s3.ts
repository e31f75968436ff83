/**
 * An in-process stand-in for the S3 calls sessions' recordings take: a node:http server on 127.0.0.1
 * speaking S3's REST protocol, path-style (the SDK addresses a bucket so when its endpoint is an IP
 * address), so a real S3Client made from AWS_ENDPOINT_URL_S3 talks to it. `HeadObject` is what the router
 * asks before it answers; a `GET` carrying a presigned URL's query is what the owner's client follows the
 * redirect with; `PutObject` is how an eks pod's log is kept when the pod is stopped; `DeleteObject` is how
 * the cleanup deletes a video a session was not to keep. Each is checked against
 * what S3 refuses (Amazon S3 API Reference, cited at each rule), the presigned URL's Signature Version 4
 * recomputed with the one key pair the fake knows. Videos are put by the recorder's stand-in
 * (fake-video-recorder.ts, a signed PutObject as rclone's) or by the test with `put`.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { closeServer } from './aws-json-fake';

/** The key pair the fake signs with, as the process under test is given it. */
export const FAKE_S3_CREDENTIALS = { accessKeyId: 'AKIDFAKES3', secretAccessKey: 'fake-s3-secret' };
/** The Region the fake's signatures are scoped to. */
export const FAKE_S3_REGION = 'us-east-1';

interface StoredObject {
  body: Buffer;
  contentType: string;
}

/** One request as the fake saw it, for tests to assert on. */
export interface S3Call {
  method: string;
  bucket: string;
  key: string;
  /** How it was authenticated: an Authorization header (the SDK's calls) or a presigned query. */
  auth: 'header' | 'presigned' | 'none';
  status: number;
}

class S3Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class FakeS3 {
  readonly calls: S3Call[] = [];
  private readonly objects = new Map<string, StoredObject>();
  private readonly server: Server;

  /** `buckets`: the buckets that exist; `clock`: what "now" is for presigned URLs' expiry. */
  private constructor(
    private readonly buckets: Set<string>,
    private readonly clock: () => number,
  ) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(buckets: string[], clock: () => number = Date.now): Promise<FakeS3> {
    const s3 = new FakeS3(new Set(buckets), clock);
    await new Promise<void>((resolve) => s3.server.listen(0, '127.0.0.1', resolve));
    return s3;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A stored object's bytes and Content-Type, or undefined. */
  object(bucket: string, key: string): StoredObject | undefined {
    return this.objects.get(`${bucket}/${key}`);
  }

  /** Stores an object, as the recorder's upload (PutObject) would. */
  put(bucket: string, key: string, body: Buffer, contentType = 'application/octet-stream'): void {
    if (!this.buckets.has(bucket)) throw new Error(`no bucket ${bucket}`);
    this.objects.set(`${bucket}/${key}`, { body, contentType });
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.answerRequest(req, res, Buffer.concat(chunks)));
  }

  private answerRequest(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const url = new URL(req.url ?? '/', this.endpoint);
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const presigned = url.searchParams.has('X-Amz-Signature');
    const auth = presigned ? 'presigned' : req.headers.authorization ? 'header' : 'none';
    const call: S3Call = { method: req.method ?? '', bucket, key, auth, status: 200 };
    this.calls.push(call);
    try {
      if (req.method === 'PUT') {
        const etag = this.putObject(req, bucket, key, auth, body);
        res.writeHead(200, { etag }).end();
        return;
      }
      if (req.method === 'DELETE') {
        this.deleteObject(req, bucket, key, auth);
        call.status = 204;
        res.writeHead(204).end();
        return;
      }
      const found = this.answer(req, url, bucket, key, auth);
      const headers: Record<string, string> = {
        'content-type': url.searchParams.get('response-content-type') ?? found.contentType,
        'content-length': String(found.body.length),
        etag: `"${createHash('md5').update(found.body).digest('hex')}"`,
      };
      // GetObject, "Overriding response header values through the request": only a signed request may.
      const disposition = url.searchParams.get('response-content-disposition');
      if (disposition) headers['content-disposition'] = disposition;
      res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : found.body);
    } catch (error) {
      const refusal = error instanceof S3Refusal ? error : new S3Refusal(500, 'InternalError', String(error));
      call.status = refusal.status;
      // A HEAD's answer has no body (API_HeadObject: "the response ... does not include a body").
      const body =
        req.method === 'HEAD'
          ? undefined
          : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`;
      res.writeHead(refusal.status, { 'content-type': 'application/xml' }).end(body);
    }
  }

  /**
   * PutObject (API_PutObject), signed by header: the key rules as for a read; a Content-Length is required
   * (411 MissingContentLength) and a single PUT holds at most 5 GB (400 EntityTooLarge); a CRC32 the SDK
   * sends (x-amz-checksum-crc32, "Checking object integrity") must be the body's (400 BadDigest).
   */
  private putObject(
    req: IncomingMessage,
    bucket: string,
    key: string,
    auth: S3Call['auth'],
    body: Buffer,
  ): string {
    this.checkNames(bucket, key);
    if (auth !== 'header') throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
    this.checkHeaderScope(String(req.headers.authorization));
    if (!this.buckets.has(bucket)) throw new S3Refusal(404, 'NoSuchBucket', 'The bucket does not exist.');
    const declared = req.headers['x-amz-decoded-content-length'] ?? req.headers['content-length'];
    if (declared === undefined) {
      throw new S3Refusal(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    }
    if (Number(declared) > 5 * 1024 ** 3) {
      throw new S3Refusal(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.');
    }
    if (req.headers['content-encoding']?.includes('aws-chunked')) {
      throw new S3Refusal(501, 'NotImplemented', 'The fake takes whole bodies, not aws-chunked ones.');
    }
    const sent = req.headers['x-amz-checksum-crc32'];
    if (sent !== undefined) {
      const computed = Buffer.alloc(4);
      computed.writeUInt32BE(crc32(body));
      if (computed.toString('base64') !== sent) {
        throw new S3Refusal(
          400,
          'BadDigest',
          'The CRC32 you specified did not match the calculated checksum.',
        );
      }
    }
    const contentType = String(req.headers['content-type'] ?? 'binary/octet-stream');
    this.objects.set(`${bucket}/${key}`, { body, contentType });
    return `"${createHash('md5').update(body).digest('hex')}"`;
  }

  /**
   * DeleteObject (API_DeleteObject) on a bucket without versioning, signed by header as the SDK signs it: the
   * key rules as for a read; a missing bucket is 404 NoSuchBucket; the object is removed and the answer is
   * 204 No Content, for a key that is not there too ("If there isn't a null version, Amazon S3 does not remove
   * any objects but will still respond that the command was successful").
   */
  private deleteObject(req: IncomingMessage, bucket: string, key: string, auth: S3Call['auth']): void {
    this.checkNames(bucket, key);
    if (auth !== 'header') throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
    this.checkHeaderScope(String(req.headers.authorization));
    if (!this.buckets.has(bucket)) throw new S3Refusal(404, 'NoSuchBucket', 'The bucket does not exist.');
    this.objects.delete(`${bucket}/${key}`);
  }

  /** "General purpose bucket naming rules" and "Naming Amazon S3 objects". */
  private checkNames(bucket: string, key: string): void {
    // 3-63 characters of lower-case letters, digits, '.' and '-', beginning and ending with a letter or digit.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new S3Refusal(400, 'InvalidBucketName', 'The specified bucket is not valid.');
    }
    // A key is at most 1,024 bytes of UTF-8.
    if (key === '' || Buffer.byteLength(key) > 1024) {
      throw new S3Refusal(400, 'KeyTooLongError', 'Your key is too long.');
    }
  }

  private answer(
    req: IncomingMessage,
    url: URL,
    bucket: string,
    key: string,
    auth: S3Call['auth'],
  ): StoredObject {
    if (req.method !== 'HEAD' && req.method !== 'GET') {
      throw new S3Refusal(
        405,
        'MethodNotAllowed',
        'The fake serves HeadObject, GetObject, PutObject and DeleteObject only.',
      );
    }
    this.checkNames(bucket, key);
    if (auth === 'none') throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
    if (auth === 'header') this.checkHeaderScope(String(req.headers.authorization));
    else this.checkPresigned(req, url);
    if (!this.buckets.has(bucket)) throw new S3Refusal(404, 'NoSuchBucket', 'The bucket does not exist.');
    const found = this.objects.get(`${bucket}/${key}`);
    // API_GetObject / API_HeadObject: without s3:ListBucket (the router has none) a missing key is 403.
    if (!found) throw new S3Refusal(403, 'AccessDenied', 'Access Denied');
    return found;
  }

  /** The SDK's signed calls: a SigV4 Authorization header scoped to this fake's key, Region and s3. */
  private checkHeaderScope(authorization: string): void {
    const scope = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request,/.exec(
      authorization,
    );
    if (!scope || scope[1] !== FAKE_S3_CREDENTIALS.accessKeyId) {
      throw new S3Refusal(403, 'InvalidAccessKeyId', 'The AWS access key ID you provided does not exist.');
    }
    if (scope[2] !== FAKE_S3_REGION || scope[3] !== 's3') {
      throw new S3Refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
    }
  }

  /**
   * A presigned URL ("Authenticating Requests: Using Query Parameters (AWS Signature Version 4)"): its
   * algorithm, an expiry of 1 s to 7 days that has not passed, and a signature that is the one this fake's
   * secret gives the canonical request (signed header: host; payload UNSIGNED-PAYLOAD).
   */
  private checkPresigned(req: IncomingMessage, url: URL): void {
    const query = url.searchParams;
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3Refusal(
        400,
        'AuthorizationQueryParametersError',
        'X-Amz-Algorithm must be AWS4-HMAC-SHA256.',
      );
    }
    const expires = Number(query.get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1 || expires > 604_800) {
      throw new S3Refusal(
        400,
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be between 1 and 604800 seconds.',
      );
    }
    const date = query.get('X-Amz-Date') ?? '';
    const signedAt = Date.parse(
      date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    if (Number.isNaN(signedAt)) {
      throw new S3Refusal(400, 'AuthorizationQueryParametersError', 'X-Amz-Date is not a date.');
    }
    if (this.clock() > signedAt + expires * 1000) {
      throw new S3Refusal(403, 'AccessDenied', 'Request has expired');
    }
    const [keyId, day, region, service] = (query.get('X-Amz-Credential') ?? '').split('/');
    if (keyId !== FAKE_S3_CREDENTIALS.accessKeyId || region !== FAKE_S3_REGION || service !== 's3') {
      throw new S3Refusal(403, 'InvalidAccessKeyId', 'The AWS access key ID you provided does not exist.');
    }
    if (query.get('X-Amz-SignedHeaders') !== 'host') {
      throw new S3Refusal(403, 'SignatureDoesNotMatch', 'The fake expects the host header signed alone.');
    }
    const canonicalQuery = [...query.entries()]
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => [rfc3986(name), rfc3986(value)])
      .sort(([a = ''], [b = '']) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `${name}=${value}`)
      .join('&');
    const canonicalRequest = [
      req.method,
      url.pathname,
      canonicalQuery,
      `host:${req.headers.host}\n`,
      'host',
      'UNSIGNED-PAYLOAD',
    ].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
    const signingKey = [day, region, 's3', 'aws4_request'].reduce<Buffer | string>(
      (key, part) => hmac(key, part ?? ''),
      `AWS4${FAKE_S3_CREDENTIALS.secretAccessKey}`,
    );
    if (hmac(signingKey, toSign).toString('hex') !== query.get('X-Amz-Signature')) {
      throw new S3Refusal(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided.',
      );
    }
  }
}

/** SigV4's URI encoding: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded. */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: Buffer | string, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}
