import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseHtpasswd,
  readHtpasswdFile,
  readHtpasswdFileSync,
  UsersFileError,
} from '../../functions/adapters/htpasswd/htpasswd-file';

const BCRYPT = '$2y$04$kIZYla8LHkt3V2Amu/XkFO58gVWmSMaI3DkZUxJCp5HBC9ubCDDVG';
const APR1 = '$apr1$zBzTzmiM$9zgmzZKxy6gzN23w487v3.';
const SHA = '{SHA}zDWP8f33jIgtzBU4G57UXp/L1Eg=';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-htpasswd-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(text: string): string[] {
  try {
    parseHtpasswd(text, 'users.htpasswd');
  } catch (error) {
    expect(error).toBeInstanceOf(UsersFileError);
    return (error as UsersFileError).problems;
  }
  throw new Error('the file was accepted');
}

describe('parseHtpasswd', () => {
  it('reads name:hash lines of every supported kind', () => {
    const users = parseHtpasswd(`alice:${BCRYPT}\nbob:${APR1}\ncarol@example.com:${SHA}\n`, 'f');
    expect([...users]).toEqual([
      ['alice', BCRYPT],
      ['bob', APR1],
      ['carol@example.com', SHA],
    ]);
  });

  it('skips blank lines and # comments, and copes with CRLF and trailing blanks as Apache does', () => {
    const text = `# made with htpasswd -B\r\n\r\nalice:${BCRYPT}\r\n   \n#bob:${APR1}\nbob:${APR1}  \n`;
    expect([...parseHtpasswd(text, 'f').keys()]).toEqual(['alice', 'bob']);
  });

  it('ignores fields after the hash, as mod_authn_file does', () => {
    expect(parseHtpasswd(`alice:${BCRYPT}:Alice Liddell`, 'f').get('alice')).toBe(BCRYPT);
  });

  it('reads an empty file as no users', () => {
    expect(parseHtpasswd('', 'f').size).toBe(0);
    expect(parseHtpasswd('# nobody yet\n', 'f').size).toBe(0);
  });

  it('reports every line it cannot use at once, with its number', () => {
    const text = [
      `alice:${BCRYPT}`,
      'just-a-name',
      `:${APR1}`,
      'dave:secret',
      'erin:HXXRzmoZk2Huo',
      `alice:${SHA}`,
      `bell\u0007:${SHA}`,
    ].join('\n');
    expect(problemsOf(text)).toEqual([
      'line 2: not "name:hash"',
      'line 3: not "name:hash"',
      'line 4: user "dave" has a hash gridgate cannot check (it reads bcrypt, apr1/MD5 and {SHA}; make one with htpasswd -B)',
      'line 5: user "erin" has a hash gridgate cannot check (it reads bcrypt, apr1/MD5 and {SHA}; make one with htpasswd -B)',
      'line 6: user "alice" is already on line 1',
      'line 7: not "name:hash"',
    ]);
  });

  it('names the file in its error', () => {
    expect(() => parseHtpasswd('nobody', '/etc/gridgate/users')).toThrow(
      /^users file \/etc\/gridgate\/users cannot be used:\n {2}- line 1: not "name:hash"$/,
    );
  });
});

describe('reading the file', () => {
  it('reads it at start-up and later alike', async () => {
    const path = join(dir, 'users');
    writeFileSync(path, `alice:${BCRYPT}\n`);
    expect([...readHtpasswdFileSync(path).keys()]).toEqual(['alice']);
    expect([...(await readHtpasswdFile(path)).keys()]).toEqual(['alice']);
  });

  it('says which file is missing', async () => {
    const path = join(dir, 'missing.htpasswd');
    expect(() => readHtpasswdFileSync(path)).toThrow(UsersFileError);
    expect(() => readHtpasswdFileSync(path)).toThrow(`users file ${path} cannot be used`);
    expect(() => readHtpasswdFileSync(path)).toThrow(/cannot read it: ENOENT/);
    await expect(readHtpasswdFile(path)).rejects.toThrow(/cannot read it: ENOENT/);
  });

  it('refuses a directory', () => {
    expect(() => readHtpasswdFileSync(dir)).toThrow(/cannot read it: EISDIR/);
  });
});
