/**
 * A hash that no password matches, shaped like the costliest hash of a users file: an unknown user's
 * password is checked against it, so a sign-in takes as long whether or not the name exists (no user
 * enumeration by timing). Made of random characters, not by hashing: bcrypt still does all its rounds
 * for a hash it was never made by, and building it costs nothing at start-up.
 */
import { randomBytes } from 'node:crypto';
import { passwordHashKind } from './password-hash';

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const COST_ORDER = ['sha1', 'md5', 'bcrypt'] as const;

export function dummyHashLike(hashes: Iterable<string>): string {
  let costliest: string | undefined;
  let rank = -1;
  for (const hash of hashes) {
    const kind = passwordHashKind(hash);
    const kindRank = kind ? COST_ORDER.indexOf(kind) : -1;
    if (
      kindRank > rank ||
      (kind === 'bcrypt' && kindRank === rank && bcryptCost(hash) > bcryptCost(costliest))
    ) {
      costliest = hash;
      rank = kindRank;
    }
  }
  switch (costliest === undefined ? undefined : passwordHashKind(costliest)) {
    case 'bcrypt':
      // `$2y$10$` then 22 characters of salt and 31 of hash, as bcrypt writes them.
      return `${(costliest as string).slice(0, 7)}${randomText(BCRYPT_ALPHABET, 53)}`;
    case 'md5':
      return `$apr1$${randomText(BCRYPT_ALPHABET, 8)}$${randomText(BCRYPT_ALPHABET, 22)}`;
    default:
      // An empty file, or {SHA} only: a SHA-1 comparison costs next to nothing either way.
      return `{SHA}${randomBytes(20).toString('base64')}`;
  }
}

function bcryptCost(hash: string | undefined): number {
  return hash === undefined ? -1 : Number(hash.slice(4, 6));
}

function randomText(alphabet: string, length: number): string {
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}
