import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import aprMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsersFileError } from '../../functions/adapters/htpasswd/htpasswd-file';
import { HtpasswdUserDirectory } from '../../functions/adapters/htpasswd/htpasswd-user-directory';
import { CollectingLogger, FixedClock } from '../support/fakes';
import { eventually } from '../support/until';

const POLL_MS = 10;
const root = mkdtempSync(join(tmpdir(), 'gridgate-htpasswd-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const line = {
  bcrypt: (user: string, password: string) => `${user}:${bcrypt.hashSync(password, 4)}`,
  apr1: (user: string, password: string) => `${user}:${aprMd5(password)}`,
  sha: (user: string, password: string) =>
    `${user}:{SHA}${createHash('sha1').update(password).digest('base64')}`,
};

let dir: string;
let path: string;
let logger: CollectingLogger;
let users: HtpasswdUserDirectory | undefined;
let count = 0;

beforeEach(() => {
  dir = join(root, `case-${++count}`);
  path = join(dir, 'users.htpasswd');
  mkdirSync(dir);
  logger = new CollectingLogger();
});
afterEach(() => users?.close());

function open(pollMs = POLL_MS): HtpasswdUserDirectory {
  users = HtpasswdUserDirectory.open(path, { clock: new FixedClock(), logger, pollMs, cacheMs: 3_600_000 });
  return users;
}

/** Replaces the file the way editors and htpasswd do: write a new file, rename it over the old one. */
function replaceFile(text: string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

describe('HtpasswdUserDirectory', () => {
  it('checks users of every hash kind from a real file', async () => {
    writeFileSync(
      path,
      [line.bcrypt('alice', 'a-pw'), line.apr1('bob', 'b-pw'), line.sha('carol', 'c-pw'), ''].join('\n'),
    );
    const directory = open(0);
    expect(await directory.verify('alice', 'a-pw')).toBe(true);
    expect(await directory.verify('bob', 'b-pw')).toBe(true);
    expect(await directory.verify('carol', 'c-pw')).toBe(true);
    expect(await directory.verify('alice', 'b-pw')).toBe(false);
    expect(await directory.verify('dave', 'a-pw')).toBe(false);
    expect(logger.fieldsOf('USERS_LOADED')).toEqual([{ path, users: 3, reload: false }]);
  });

  it('refuses to start on a missing file, naming it', () => {
    expect(() => open()).toThrow(UsersFileError);
    expect(() => open()).toThrow(`users file ${path} cannot be used:\n  - cannot read it: ENOENT`);
  });

  it('refuses to start on a file with bad lines, listing them', () => {
    writeFileSync(path, `${line.sha('alice', 'pw')}\nbob:plain-text\n`);
    expect(() => open()).toThrow(/line 2: user "bob" has a hash gridgate cannot check/);
  });

  it('picks up a file replaced by rename: new users work, removed ones stop', async () => {
    writeFileSync(path, `${line.sha('alice', 'a-pw')}\n`);
    const directory = open();
    expect(await directory.verify('alice', 'a-pw')).toBe(true);
    replaceFile(`${line.bcrypt('bob', 'b-pw')}\n`);
    await eventually(async () => expect(await directory.verify('bob', 'b-pw')).toBe(true));
    expect(await directory.verify('alice', 'a-pw')).toBe(false);
    expect(logger.fieldsOf('USERS_LOADED').at(-1)).toEqual({ path, users: 1, reload: true });
  });

  it('forgets remembered checks when a password changes in place', async () => {
    writeFileSync(path, `${line.bcrypt('alice', 'old-pw')}\n`);
    const directory = open();
    expect(await directory.verify('alice', 'old-pw')).toBe(true); // now remembered for an hour
    writeFileSync(path, `${line.bcrypt('alice', 'new-pw')}\n`); // same size, same inode
    await eventually(async () => expect(await directory.verify('alice', 'new-pw')).toBe(true));
    expect(await directory.verify('alice', 'old-pw')).toBe(false);
  });

  it('keeps the users it has when the file turns invalid, says so once, and recovers', async () => {
    writeFileSync(path, `${line.apr1('alice', 'a-pw')}\n`);
    const directory = open();
    replaceFile(`${line.apr1('alice', 'a-pw')}\nbob\n`);
    await eventually(() => expect(logger.events()).toContain('USERS_RELOAD_FAILED'));
    expect(await directory.verify('alice', 'a-pw')).toBe(true);
    expect(await directory.verify('bob', '')).toBe(false);
    // Five polls' time on purpose: a failure reported on every poll would show here.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 5));
    expect(logger.fieldsOf('USERS_RELOAD_FAILED')).toEqual([
      { path, users: 1, error: 'line 2: not "name:hash"' },
    ]);

    replaceFile(`${line.apr1('alice', 'a-pw')}\n${line.apr1('bob', 'b-pw')}\n`);
    await eventually(async () => expect(await directory.verify('bob', 'b-pw')).toBe(true));
  });

  it('keeps the users it has while the file is missing, and loads it when it is back', async () => {
    writeFileSync(path, `${line.sha('alice', 'a-pw')}\n`);
    const directory = open();
    rmSync(path);
    await eventually(() => expect(logger.events()).toContain('USERS_RELOAD_FAILED'));
    expect(logger.fieldsOf('USERS_RELOAD_FAILED')[0]?.error).toMatch(/^cannot read it: ENOENT/);
    expect(await directory.verify('alice', 'a-pw')).toBe(true);

    writeFileSync(path, `${line.sha('bob', 'b-pw')}\n`);
    await eventually(async () => expect(await directory.verify('bob', 'b-pw')).toBe(true));
    expect(await directory.verify('alice', 'a-pw')).toBe(false);
  });

  it('stops reading the file once closed', async () => {
    writeFileSync(path, `${line.sha('alice', 'a-pw')}\n`);
    const directory = open();
    await directory.close();
    replaceFile(`${line.sha('bob', 'b-pw')}\n`);
    // Ten polls' time on purpose: a directory still polling would have read the new file by then.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 10));
    expect(await directory.verify('bob', 'b-pw')).toBe(false);
    expect(await directory.verify('alice', 'a-pw')).toBe(true);
    expect(logger.events()).toEqual(['USERS_LOADED']);
  });
});
