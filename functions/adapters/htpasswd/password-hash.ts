/**
 * The password hashes Apache's htpasswd writes and ggr accepts: bcrypt, apr1/MD5-crypt and {SHA}.
 * Hashing is left to well-kept libraries; only the {SHA} digest is compared here, in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import aprMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';

export type PasswordHashKind = 'bcrypt' | 'md5' | 'sha1';

// Whole-hash shapes, so a damaged line is reported when the file loads, not as a wrong password later.
// $2x$ (an old crypt_blowfish bug mode) is left out: bcryptjs cannot check it and htpasswd never wrote it.
const FORMATS: [PasswordHashKind, RegExp][] = [
  ['bcrypt', /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/],
  ['md5', /^\$(apr1|1)\$[^$]{0,8}\$[./A-Za-z0-9]{22}$/],
  ['sha1', /^\{SHA\}[A-Za-z0-9+/]{27}=$/],
];

/** The kind of a stored hash, or undefined for one gridgate cannot check (plain text, crypt, $5$, $6$). */
export function passwordHashKind(hash: string): PasswordHashKind | undefined {
  return FORMATS.find(([, shape]) => shape.test(hash))?.[0];
}

/** True when the password matches the stored hash; false for a hash of no known kind. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  switch (passwordHashKind(hash)) {
    case 'bcrypt':
      // The asynchronous form yields to the event loop between rounds (bcrypt costs ~100 ms by design).
      return bcrypt.compare(password, hash);
    case 'md5':
      // Apache hashes the password's bytes; apache-md5 takes one character per byte, so pass UTF-8 as latin1.
      return sameText(aprMd5(Buffer.from(password, 'utf8').toString('latin1'), hash), hash);
    case 'sha1':
      return timingSafeEqual(
        createHash('sha1').update(password, 'utf8').digest(),
        Buffer.from(hash.slice('{SHA}'.length), 'base64'),
      );
    default:
      return false;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
