/**
 * The users of the status page's tests: alice, bob and root in a real htpasswd file read by the real
 * HtpasswdUserDirectory, and the Basic headers each signs in with (root is the configs' admin).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HtpasswdUserDirectory } from '../../functions/adapters/htpasswd/htpasswd-user-directory';
import { CollectingLogger, FixedClock } from './fakes';

const basic = (credentials: string) => ({
  authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
});
export const ALICE = basic('alice:alice-pw');
export const BOB = basic('bob:bob-pw');
export const ROOT = basic('root:root-pw');
export const WRONG_PASSWORD = basic('alice:wrong');
/** No credentials: the guest, where the config lets guests in. */
export const GUEST = {};

export interface PageUsers {
  /** The users file, for the config's `usersFile`. */
  file: string;
  directory: HtpasswdUserDirectory;
  /** Stops the directory and deletes the file. */
  close(): Promise<void>;
}

export function openPageUsers(): PageUsers {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-page-users-'));
  const file = join(dir, 'users.htpasswd');
  const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  writeFileSync(file, `alice:${sha('alice-pw')}\nbob:${sha('bob-pw')}\nroot:${sha('root-pw')}\n`);
  const directory = HtpasswdUserDirectory.open(file, {
    clock: new FixedClock(),
    logger: new CollectingLogger(),
    pollMs: 0,
  });
  return {
    file,
    directory,
    close: async () => {
      await directory.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
