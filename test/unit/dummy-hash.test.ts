import { createHash } from 'node:crypto';
import aprMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { dummyHashLike } from '../../functions/adapters/htpasswd/dummy-hash';
import { passwordHashKind, verifyPassword } from '../../functions/adapters/htpasswd/password-hash';

const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;

describe('dummyHashLike', () => {
  it('is a bcrypt hash of the highest cost in the file, of a kind gridgate checks', () => {
    const dummy = dummyHashLike([sha('a'), bcrypt.hashSync('b', 4), bcrypt.hashSync('c', 6), aprMd5('d')]);
    expect(dummy).toMatch(/^\$2[aby]\$06\$/);
    expect(passwordHashKind(dummy)).toBe('bcrypt');
  });

  it('is an apr1 hash when the costliest hash in the file is apr1, and {SHA} when all are', () => {
    expect(passwordHashKind(dummyHashLike([sha('a'), aprMd5('b')]))).toBe('md5');
    expect(passwordHashKind(dummyHashLike([sha('a')]))).toBe('sha1');
    expect(passwordHashKind(dummyHashLike([]))).toBe('sha1');
  });

  it('differs each time and matches no password, not even an empty one', async () => {
    const file = [bcrypt.hashSync('b', 4)];
    const [one, two] = [dummyHashLike(file), dummyHashLike(file)];
    expect(one).not.toBe(two);
    for (const password of ['', 'b', 'password']) expect(await verifyPassword(password, one)).toBe(false);
  });
});
