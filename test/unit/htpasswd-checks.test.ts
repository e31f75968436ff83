/**
 * What a password check costs through HtpasswdUserDirectory: an unknown name as much as a known one,
 * a repeated wrong password nothing, and a client over its share of checks a 429 that leaves others be.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  type HtpasswdOptions,
  HtpasswdUserDirectory,
} from '../../functions/adapters/htpasswd/htpasswd-user-directory';
import { WebDriverError } from '../../functions/core/errors';
import { CollectingLogger, FixedClock } from '../support/fakes';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-checks-'));
const path = join(dir, 'users.htpasswd');
writeFileSync(path, `alice:${bcrypt.hashSync('a-pw', 5)}\nbob:${bcrypt.hashSync('b-pw', 4)}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let users: HtpasswdUserDirectory | undefined;
afterEach(async () => {
  await users?.close();
  vi.restoreAllMocks();
});

function open(options: Partial<HtpasswdOptions> = {}): HtpasswdUserDirectory {
  users = HtpasswdUserDirectory.open(path, {
    clock: new FixedClock(),
    logger: new CollectingLogger(),
    pollMs: 0,
    ...options,
  });
  return users;
}

describe('password checks through the htpasswd directory', () => {
  it('checks an unknown name against a bcrypt hash of the file’s highest cost, so it takes as long', async () => {
    const compare = vi.spyOn(bcrypt, 'compare');
    const directory = open({ threads: 0 });
    expect(await directory.verify('mallory', 'a-pw', 'client')).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    const [, hash] = compare.mock.calls[0] as [string, string];
    expect(hash).toMatch(/^\$2[aby]\$05\$[./A-Za-z0-9]{53}$/);
    expect(await directory.verify('alice', 'a-pw', 'client')).toBe(true);
  });

  it('remembers a wrong password: sending it again costs no check', async () => {
    const compare = vi.spyOn(bcrypt, 'compare');
    const directory = open({ threads: 0 });
    for (let i = 0; i < 5; i++) expect(await directory.verify('alice', 'wrong', 'client')).toBe(false);
    for (let i = 0; i < 5; i++) expect(await directory.verify('nobody', 'wrong', 'client')).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    expect(await directory.verify('alice', 'a-pw', 'client')).toBe(true);
  });

  it('checks passwords on its threads, several at once', async () => {
    const directory = open({ threads: 2 });
    const answers = await Promise.all([
      directory.verify('alice', 'a-pw', 'one'),
      directory.verify('bob', 'b-pw', 'two'),
      directory.verify('bob', 'a-pw', 'three'),
    ]);
    expect(answers).toEqual([true, true, false]);
  });

  it('refuses a client with too many checks under way (429, Retry-After) and serves another address meanwhile', async () => {
    const directory = open({ threads: 1, perClient: 2 });
    const flood = ['x1', 'x2', 'x3'].map((password) =>
      directory.verify('alice', password, '10.0.0.66').catch((error: unknown) => error),
    );
    const other = directory.verify('alice', 'a-pw', '10.0.0.7');
    const refused = (await flood[2]) as WebDriverError;
    expect(refused).toBeInstanceOf(WebDriverError);
    expect([refused.status, refused.headers['Retry-After']]).toEqual([429, '1']);
    expect(await other).toBe(true);
    expect(await Promise.all(flood.slice(0, 2))).toEqual([false, false]);
    // The user is not locked out, from the flooding address either, once its checks are done.
    expect(await directory.verify('alice', 'a-pw', '10.0.0.66')).toBe(true);
  });
});
