import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type SessionClaims, SessionTokens } from '../../functions/core/session-token';

const SECRET = Buffer.from('0123456789abcdef0123456789abcdef');
const tokens = new SessionTokens(SECRET);

// A local Chromium session: chromedriver's 32-hex session ID, a pid, a DevTools port.
const LOCAL: SessionClaims = {
  key: 'a1b2c3d4e5f60718',
  pool: 'local',
  address: '127.0.0.1:41235',
  upstreamId: '5f1c0a4b8e2d47a39c6b1e0f2d3a4b5c',
  handle: '123456',
  devtools: '127.0.0.1:38211',
  createdAt: Date.UTC(2025, 0, 1, 12, 0, 0),
  maxAgeMs: 3_600_000,
};

// A Fargate-like session: a VPC address, a Selenium Grid UUID, an ECS task ID, no DevTools.
const CLOUD: SessionClaims = {
  key: 'ffeeddccbbaa9988',
  pool: 'fargate-spot-eu-west-1',
  address: '10.120.201.254:4444',
  upstreamId: randomUUID(),
  handle: 'a3f1c2d4e5b6478899aabbccddeeff00',
  devtools: '',
  createdAt: Date.UTC(2025, 5, 30, 23, 59, 59),
  maxAgeMs: 7_200_000,
};

// An EKS-like session: a pod IP, a pod name gridgate generates, a Selenium UUID.
const POD: SessionClaims = {
  ...CLOUD,
  pool: 'eks-chrome-us-east-1',
  address: '10.120.201.254:4444',
  upstreamId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  handle: 'gridgate-chrome-xk2lp',
};

function verified(token: string, user = 'guest'): SessionClaims {
  const check = tokens.verify(token, user);
  if (!check.ok) throw new Error(`expected the token to verify, got ${check.reason}`);
  return check.claims;
}

describe('SessionTokens round trip', () => {
  it.each([
    ['a local session', LOCAL],
    ['a cloud session', CLOUD],
    ['a pod session', POD],
  ])('gives back the claims of %s', (_, claims) => {
    expect(verified(tokens.sign(claims, 'guest'))).toEqual(claims);
  });

  it('packs a UUID into 16 bytes and gives it back with its dashes', () => {
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const withUuid = tokens.sign({ ...LOCAL, upstreamId: uuid }, 'guest');
    const asText = tokens.sign({ ...LOCAL, upstreamId: `${uuid}x` }, 'guest');
    expect(verified(withUuid).upstreamId).toBe(uuid);
    // 36 characters of text against 16 bytes packed: about 27 base64url characters shorter.
    expect(asText.length - withUuid.length).toBeGreaterThan(20);
  });

  it('packs lower-case hex into half the bytes and keeps leading zeros', () => {
    const hex = '00ab00cd00ef00120034005600780090';
    const packed = tokens.sign({ ...LOCAL, upstreamId: hex }, 'guest');
    expect(verified(packed).upstreamId).toBe(hex);
    expect(tokens.sign({ ...LOCAL, upstreamId: `${hex}g` }, 'guest').length - packed.length).toBeGreaterThan(
      15,
    );
  });

  it.each([
    ['upper-case hex', 'ABCDEF0123'],
    ['odd-length hex', 'abc'],
    ['an upper-case UUID', '0F8FAD5B-D9CB-469F-A165-70867728950E'],
    ['an empty string', ''],
    ['non-ASCII text', 'sessión-☃'],
  ])('keeps %s exactly as it was', (_, value) => {
    expect(verified(tokens.sign({ ...LOCAL, upstreamId: value, handle: value }, 'guest'))).toMatchObject({
      upstreamId: value,
      handle: value,
    });
  });

  it('keeps the creation time to the second and rounds the maximum age up to a second', () => {
    const claims = verified(
      tokens.sign({ ...LOCAL, createdAt: LOCAL.createdAt + 999, maxAgeMs: 90_500 }, 'guest'),
    );
    expect(claims.createdAt).toBe(LOCAL.createdAt);
    expect(claims.maxAgeMs).toBe(91_000);
  });

  it('refuses to sign a field too long for a session ID', () => {
    expect(() => tokens.sign({ ...LOCAL, handle: 'x'.repeat(64) }, 'guest')).toThrow(/handle/);
  });

  it('refuses a signing secret shorter than 16 bytes', () => {
    expect(() => new SessionTokens(Buffer.from('short'))).toThrow(/16 bytes/);
  });
});

describe('SessionTokens size', () => {
  it.each([
    ['a local session', LOCAL],
    ['a cloud session', CLOUD],
    ['a pod session', POD],
  ])('keeps the ID of %s within 160 URL-safe characters', (_, claims) => {
    const token = tokens.sign(claims, 'guest');
    expect(token.length).toBeLessThanOrEqual(160);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('SessionTokens verification', () => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

  it.each([
    ['a local session', LOCAL],
    ['a cloud session', CLOUD],
    ['a pod session', POD],
  ])('rejects every single-character change to the ID of %s', (_, claims) => {
    const token = tokens.sign(claims, 'guest');
    const accepted: string[] = [];
    for (let i = 0; i < token.length; i++) {
      for (const replacement of ALPHABET) {
        if (replacement === token[i]) continue;
        const altered = token.slice(0, i) + replacement + token.slice(i + 1);
        if (tokens.verify(altered, 'guest').ok) accepted.push(`${i}:${replacement}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('rejects every truncation of an ID', () => {
    const token = tokens.sign(LOCAL, 'guest');
    for (let length = 0; length < token.length; length++) {
      expect(tokens.verify(token.slice(0, length), 'guest').ok, `first ${length} characters`).toBe(false);
      expect(tokens.verify(token.slice(token.length - length), 'guest').ok, `last ${length}`).toBe(false);
    }
  });

  it('rejects an ID with characters added', () => {
    const token = tokens.sign(LOCAL, 'guest');
    expect(tokens.verify(`${token}A`, 'guest').ok).toBe(false);
    expect(tokens.verify(`A${token}`, 'guest').ok).toBe(false);
  });

  it('rejects a session ID signed for another user', () => {
    const token = tokens.sign(LOCAL, 'alice');
    expect(tokens.verify(token, 'alice').ok).toBe(true);
    expect(tokens.verify(token, 'bob')).toEqual({ ok: false, reason: 'signature' });
    expect(tokens.verify(token, 'alice ')).toEqual({ ok: false, reason: 'signature' });
  });

  it('rejects a session ID signed with another secret', () => {
    const other = new SessionTokens(Buffer.from('fedcba9876543210fedcba9876543210'));
    expect(tokens.verify(other.sign(LOCAL, 'guest'), 'guest')).toEqual({ ok: false, reason: 'signature' });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'not a session id!'],
    ['base64 with padding', `${tokens.sign(LOCAL, 'guest')}==`],
    ['standard base64', Buffer.from('x'.repeat(90)).toString('base64').replace(/.$/, '+')],
    ['a UUID', randomUUID()],
    ['oversized', 'A'.repeat(100_000)],
    ['non-ASCII', 'séssion'],
    ['path traversal', '../../etc/passwd'],
    ['random bytes', randomBytes(90).toString('base64url')],
    [
      'random bytes with the version byte',
      Buffer.concat([Buffer.of(1), randomBytes(89)]).toString('base64url'),
    ],
  ])('rejects garbage (%s) without throwing', (_, garbage) => {
    expect(() => tokens.verify(garbage, 'guest')).not.toThrow();
    expect(tokens.verify(garbage, 'guest').ok).toBe(false);
  });

  it('rejects thousands of random strings without throwing', () => {
    for (let i = 0; i < 5000; i++) {
      const garbage = randomBytes(i % 200).toString('base64url');
      expect(tokens.verify(garbage, 'guest').ok).toBe(false);
    }
  });

  it('rejects, as malformed and without throwing, a correctly signed ID whose fields run past its end', () => {
    // Whoever holds the secret could sign anything; decoding must still never throw.
    const header = Buffer.alloc(9);
    header.writeUInt8(1, 0);
    const payload = Buffer.concat([header, Buffer.of(5, 1, 1, 1, 1, 1, 50, 1)]);
    const mac = createHmac('sha256', SECRET)
      .update('gridgate-session\0guest\0')
      .update(payload)
      .digest()
      .subarray(0, 16);
    const token = Buffer.concat([payload, mac]).toString('base64url');
    expect(tokens.verify(token, 'guest')).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('SessionTokens remembers IDs it verified', () => {
  it('answers a remembered ID as before, and still refuses it for another user or altered', () => {
    const remembering = new SessionTokens(SECRET);
    const token = remembering.sign(LOCAL, 'alice');
    const first = remembering.verify(token, 'alice');
    expect(remembering.verify(token, 'alice')).toEqual(first);
    expect(remembering.verify(token, 'bob')).toEqual({ ok: false, reason: 'signature' });
    const altered = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    expect(remembering.verify(altered, 'alice').ok).toBe(false);
  });

  it('hands out claims nobody can change for the next command', () => {
    const remembering = new SessionTokens(SECRET);
    const token = remembering.sign(LOCAL, 'guest');
    const claims = (remembering.verify(token, 'guest') as { claims: SessionClaims }).claims;
    expect(() => {
      (claims as { address: string }).address = '10.0.0.1:4444';
    }).toThrow(TypeError);
    expect(remembering.verify(token, 'guest')).toEqual({ ok: true, claims: LOCAL });
  });

  it('stays bounded and verifies a forgotten ID again from scratch', () => {
    const remembering = new SessionTokens(SECRET);
    const first = remembering.sign(LOCAL, 'guest');
    remembering.verify(first, 'guest');
    for (let i = 0; i < 2_500; i++) {
      remembering.verify(
        remembering.sign({ ...LOCAL, key: i.toString(16).padStart(16, '0') }, 'guest'),
        'guest',
      );
    }
    expect((remembering as unknown as { verified: Map<string, unknown> }).verified.size).toBeLessThanOrEqual(
      2_000,
    );
    expect(remembering.verify(first, 'guest')).toEqual({ ok: true, claims: LOCAL });
  });
});

describe('SessionTokens remembers the IDs it signs', () => {
  it('remembers a freshly signed ID with its claims as they decode (times kept to the second)', () => {
    const remembering = new SessionTokens(SECRET);
    const token = remembering.sign({ ...LOCAL, createdAt: LOCAL.createdAt + 999 }, 'guest');
    const remembered = (remembering as unknown as { verified: Map<string, { user: string; check: unknown }> })
      .verified;
    expect(remembered.get(token)).toEqual({ user: 'guest', check: { ok: true, claims: LOCAL } });
    expect(remembering.verify(token, 'guest')).toEqual({ ok: true, claims: LOCAL });
    expect(remembering.verify(token, 'other').ok).toBe(false);
  });
});
