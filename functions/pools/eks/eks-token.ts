/**
 * The bearer token the EKS API server accepts for an IAM identity: a presigned STS GetCallerIdentity URL
 * with the cluster name signed in (header x-k8s-aws-id), made locally with SigV4 (no STS call), as
 * `aws eks get-token` and aws-iam-authenticator make it. EKS honours such a token for 15 minutes from its
 * X-Amz-Date, whatever X-Amz-Expires says; it is reused and made anew before 14 minutes.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, SourceData } from '@smithy/types';
import { type Clock, systemClock } from '../../core/ports';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header EKS reads the cluster name from; signing it binds the token to one cluster. */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
// aws-cli's get_token uses 60 s; EKS ignores it and applies its own 15-minute lifetime.
const URL_EXPIRES_S = 60;
const REFRESH_AFTER_MS = 14 * 60_000;

export interface EksTokenOptions {
  cluster: string;
  /** The region of the cluster: its regional STS endpoint signs the token. */
  region: string;
  /** The SDK's credential provider (e.g. an SDK client's config.credentials), so role credentials refresh. */
  credentials: () => Promise<AwsCredentialIdentity>;
  clock?: Clock;
}

/** Returns the current token, signing a new one when none is cached or the cached one is 14 minutes old. */
export type TokenProvider = () => Promise<string>;

export function eksTokenProvider(options: EksTokenOptions): TokenProvider {
  const clock = options.clock ?? systemClock;
  let cached: { token: string; signedAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return async () => {
    const now = clock.now();
    if (cached && now - cached.signedAt < REFRESH_AFTER_MS) return cached.token;
    // Concurrent launches share one signing instead of each making its own.
    pending ??= (async () => {
      try {
        const token = await eksToken(options.cluster, options.region, await options.credentials(), now);
        cached = { token, signedAt: now };
        return token;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
}

/** One token, signed at `at` (epoch ms). */
export async function eksToken(
  cluster: string,
  region: string,
  credentials: AwsCredentialIdentity,
  at: number,
): Promise<string> {
  const url = await presignedCallerIdentityUrl(cluster, region, credentials, at);
  return TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

/** The presigned `GET https://sts.<region>.amazonaws.com/?Action=GetCallerIdentity…` URL. */
export async function presignedCallerIdentityUrl(
  cluster: string,
  region: string,
  credentials: AwsCredentialIdentity,
  at: number,
): Promise<string> {
  const hostname = `sts.${region}.amazonaws.com`;
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: NodeSha256 });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: cluster },
    },
    { expiresIn: URL_EXPIRES_S, signingDate: new Date(at) },
  );
  // Sorted as in the canonical query string, the signature last: the shape `aws eks get-token` prints.
  const { 'X-Amz-Signature': signature, ...rest } = signed.query ?? {};
  const pairs = Object.entries(rest)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .concat([['X-Amz-Signature', signature ?? null]])
    .map(([key, value]) => `${rfc3986(key)}=${rfc3986(String(value))}`);
  return `https://${hostname}/?${pairs.join('&')}`;
}

/** Percent-encoding as SigV4 wants it: everything but A–Z a–z 0–9 - _ . ~ (RFC 3986 unreserved). */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the SigV4 signer takes. */
class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  update(data: SourceData): void {
    this.hash.update(toBytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
}

function toBytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}
