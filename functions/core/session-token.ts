/**
 * Session IDs that carry everything needed to route and release a session, authenticated with
 * HMAC-SHA256 and bound to the user (DESIGN invariants 1 and 2). Nothing is looked up to verify one.
 *
 * Layout (then base64url): version u8 | createdAt u32 (s) | maxAge u32 (s) | fields | mac (16 bytes).
 * Each field is a length byte (top two bits: 0 text, 1 hex packed, 2 UUID packed) and its bytes, so a
 * local session's ID is about 130 characters and stays under 160 for cloud upstreams.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** gridgate's own key for the session: names its record and its quota slot. */
  key: string;
  pool: string;
  /** host:port of the browser's WebDriver endpoint. */
  address: string;
  /** The browser's own session ID. */
  upstreamId: string;
  /** What the launcher needs to stop the browser (a pid, a task ID, a pod name). */
  handle: string;
  /** host:port of the browser's DevTools endpoint, where gridgate itself serves se:cdp. */
  devtools: string;
  /** Epoch milliseconds (kept to the second). */
  createdAt: number;
  maxAgeMs: number;
}

export type TokenCheck =
  | { ok: true; claims: SessionClaims }
  | { ok: false; reason: 'malformed' | 'signature' };

const VERSION = 1;
const MAC_BYTES = 16; // 128-bit truncated HMAC-SHA256 (NIST SP 800-107 allows truncation to ≥ 64 bits)
const FIELD_ORDER = ['key', 'pool', 'address', 'upstreamId', 'handle', 'devtools'] as const;
const KIND_TEXT = 0;
const KIND_HEX = 1;
const KIND_UUID = 2;
const MAX_FIELD = 63;
const HEX = /^(?:[0-9a-f]{2})+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// Sessions whose verified claims are remembered: well above the sessions one router serves at once.
const REMEMBERED = 2_000;

export class SessionTokens {
  /**
   * Verified IDs, each with the user it verified for: a session sends thousands of commands, and an HMAC costs more than the
   * rest of verifying. Claims are a pure function of the ID, the user and the secret, so a remembered
   * answer is the answer; only IDs that verified are kept, so a forged one never skips the check.
   */
  private readonly verified = new Map<string, { user: string; check: TokenCheck }>();

  constructor(private readonly secret: Buffer) {
    if (secret.length < 16) throw new Error('the session signing secret needs at least 16 bytes');
  }

  sign(claims: SessionClaims, user: string): string {
    const header = Buffer.alloc(9);
    header.writeUInt8(VERSION, 0);
    header.writeUInt32BE(Math.floor(claims.createdAt / 1000), 1);
    header.writeUInt32BE(Math.ceil(claims.maxAgeMs / 1000), 5);
    const payload = Buffer.concat([header, ...FIELD_ORDER.map((name) => encodeField(name, claims[name]))]);
    const token = Buffer.concat([payload, this.mac(payload, user)]).toString('base64url');
    // The session's first commands most likely come back to the head that created it: remembered now,
    // as they will decode (times kept to the second), they skip the HMAC from the first one on.
    this.verify(token, user);
    return token;
  }

  verify(token: string, user: string): TokenCheck {
    // By ID alone, then the user compared: a lookup that builds no key (this runs for every command).
    const remembered = this.verified.get(token);
    if (remembered?.user === user) return remembered.check;
    const check = this.check(token, user);
    if (check.ok) this.remember(token, user, check.claims);
    return check;
  }

  /**
   * What an ID claims, without checking its signature: only to learn whose session it says it is, so that
   * an admin's request can then be checked with verify() against that user. Never act on it alone.
   */
  unverifiedClaims(token: string): SessionClaims | undefined {
    const bytes = canonicalBytes(token);
    return bytes && decodeClaims(bytes.subarray(0, bytes.length - MAC_BYTES));
  }

  private remember(token: string, user: string, claims: SessionClaims): void {
    // Oldest first: a Map iterates in insertion order.
    this.verified.delete(token);
    if (this.verified.size >= REMEMBERED) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { user, check: Object.freeze({ ok: true, claims: Object.freeze(claims) }) });
  }

  private check(token: string, user: string): TokenCheck {
    const bytes = canonicalBytes(token);
    if (!bytes) return { ok: false, reason: 'malformed' };
    const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(this.mac(payload, user), bytes.subarray(payload.length))) {
      return { ok: false, reason: 'signature' };
    }
    const claims = decodeClaims(payload);
    return claims ? { ok: true, claims } : { ok: false, reason: 'malformed' };
  }

  private mac(payload: Buffer, user: string): Buffer {
    // The user is in the MAC, not the token: another user's token simply fails to verify.
    return createHmac('sha256', this.secret)
      .update(`gridgate-session\0${user}\0`)
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

/** The ID's bytes if it is one in its one canonical spelling, of this version and long enough. */
function canonicalBytes(token: string): Buffer | undefined {
  if (token.length > 400 || !BASE64URL.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // Node's decoder ignores a last character's unused bits and a dangling one: only the canonical spelling
  // of the bytes is this session's ID, so no two strings name one session.
  if (bytes.toString('base64url') !== token) return undefined;
  if (bytes.length < 9 + FIELD_ORDER.length + MAC_BYTES || bytes[0] !== VERSION) return undefined;
  return bytes;
}

function encodeField(name: string, value: string): Buffer {
  let kind = KIND_TEXT;
  let bytes = Buffer.from(value, 'utf8');
  if (UUID.test(value)) [kind, bytes] = [KIND_UUID, Buffer.from(value.replaceAll('-', ''), 'hex')];
  else if (HEX.test(value)) [kind, bytes] = [KIND_HEX, Buffer.from(value, 'hex')];
  if (bytes.length > MAX_FIELD)
    throw new Error(`session ${name} is too long to put in a session ID: ${value}`);
  return Buffer.concat([Buffer.of((kind << 6) | bytes.length), bytes]);
}

function decodeClaims(payload: Buffer): SessionClaims | undefined {
  const fields: string[] = [];
  let offset = 9;
  for (let i = 0; i < FIELD_ORDER.length; i++) {
    if (offset >= payload.length) return undefined;
    const lead = payload[offset] as number;
    const end = offset + 1 + (lead & MAX_FIELD);
    if (end > payload.length) return undefined;
    const bytes = payload.subarray(offset + 1, end);
    const kind = lead >> 6;
    if (kind === KIND_TEXT) fields.push(bytes.toString('utf8'));
    else if (kind === KIND_HEX) fields.push(bytes.toString('hex'));
    else if (kind === KIND_UUID && bytes.length === 16) fields.push(formatUuid(bytes.toString('hex')));
    else return undefined;
    offset = end;
  }
  if (offset !== payload.length) return undefined;
  const [key, pool, address, upstreamId, handle, devtools] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    key,
    pool,
    address,
    upstreamId,
    handle,
    devtools,
    createdAt: payload.readUInt32BE(1) * 1000,
    maxAgeMs: payload.readUInt32BE(5) * 1000,
  };
}

function formatUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
