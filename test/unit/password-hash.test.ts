import { createHash } from 'node:crypto';
import aprMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { passwordHashKind, verifyPassword } from '../../functions/adapters/htpasswd/password-hash';

// Written by Apache's own tools (htpasswd 2.4, OpenSSL 3.0), so the checks match theirs, not only ours.
const FROM_APACHE = {
  bcrypt: ['alice-secret', '$2y$04$kIZYla8LHkt3V2Amu/XkFO58gVWmSMaI3DkZUxJCp5HBC9ubCDDVG'], // htpasswd -B -C 4
  apr1: ['bob-secret', '$apr1$zBzTzmiM$9zgmzZKxy6gzN23w487v3.'], // htpasswd -m
  sha: ['carol-secret', '{SHA}zDWP8f33jIgtzBU4G57UXp/L1Eg='], // htpasswd -s
  apr1Utf8: ['pässwörd✓', '$apr1$Bnm2JTOv$g38lYdlTHUQVXUhmRaUxe/'], // htpasswd -m, UTF-8 terminal
  md5crypt: ['erin-secret', '$1$saltsalt$5pGO4JDxhDO.MV44gtFEt1'], // openssl passwd -1
} as const;

const bcryptOf = (password: string, prefix: '2a' | '2b' | '2y') =>
  bcrypt.hashSync(password, 4).replace(/^\$2b\$/, `$${prefix}$`);
const shaOf = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;

describe('verifyPassword', () => {
  it.each(Object.entries(FROM_APACHE))(
    'accepts the right password for a hash Apache made (%s)',
    async (_, [password, hash]) => {
      expect(await verifyPassword(password, hash)).toBe(true);
      expect(await verifyPassword(`${password}x`, hash)).toBe(false);
      expect(await verifyPassword('', hash)).toBe(false);
    },
  );

  it.each(['2a', '2b', '2y'] as const)('checks bcrypt $%s$ hashes', async (prefix) => {
    const hash = bcryptOf('s3cret', prefix);
    expect(hash.startsWith(`$${prefix}$04$`)).toBe(true);
    expect(await verifyPassword('s3cret', hash)).toBe(true);
    expect(await verifyPassword('S3cret', hash)).toBe(false);
  });

  it('checks apr1 hashes made with a fresh salt', async () => {
    const hash = aprMd5('s3cret');
    expect(hash).toMatch(/^\$apr1\$/);
    expect(await verifyPassword('s3cret', hash)).toBe(true);
    expect(await verifyPassword('s3cre', hash)).toBe(false);
  });

  it('checks {SHA} hashes, which are base64(sha1(password))', async () => {
    expect(await verifyPassword('s3cret', shaOf('s3cret'))).toBe(true);
    expect(await verifyPassword('s3cret ', shaOf('s3cret'))).toBe(false);
    expect(await verifyPassword('pässwörd', shaOf('pässwörd'))).toBe(true);
  });

  it('refuses every password for a hash it cannot check', async () => {
    expect(await verifyPassword('plain', 'plain')).toBe(false);
    expect(await verifyPassword('', '')).toBe(false);
  });
});

describe('passwordHashKind', () => {
  it('names the kinds htpasswd writes', () => {
    expect(passwordHashKind(FROM_APACHE.bcrypt[1])).toBe('bcrypt');
    expect(passwordHashKind(bcryptOf('x', '2a'))).toBe('bcrypt');
    expect(passwordHashKind(FROM_APACHE.apr1[1])).toBe('md5');
    expect(passwordHashKind(FROM_APACHE.md5crypt[1])).toBe('md5');
    expect(passwordHashKind(FROM_APACHE.sha[1])).toBe('sha1');
  });

  it.each([
    ['plain text', 'secret'],
    ['crypt(3) DES (htpasswd -d)', 'HXXRzmoZk2Huo'],
    [
      'SHA-512 crypt (htpasswd -5)',
      '$6$qbhPGqFWDBPGa2A/$eGb0HLPsMhea6WL.VH.YiCzwaGChjX.ob8E6WYU5wyvSaR4Wzdw',
    ],
    ['bcrypt $2x$', FROM_APACHE.bcrypt[1].replace('$2y$', '$2x$')],
    ['truncated bcrypt', FROM_APACHE.bcrypt[1].slice(0, -1)],
    ['bcrypt with cost 3', FROM_APACHE.bcrypt[1].replace('$04$', '$03$')],
    ['truncated apr1', FROM_APACHE.apr1[1].slice(0, -1)],
    ['{SHA} of the wrong length', '{SHA}zDWP8f33jIgtzBU4G57UXp/L1E='],
    ['empty', ''],
  ])('knows no kind for %s', (_, hash) => {
    expect(passwordHashKind(hash)).toBeUndefined();
  });
});
