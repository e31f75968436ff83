/** Reads an Apache htpasswd file into user → hash, reporting every line it cannot use at once. */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { passwordHashKind } from './password-hash';

export class UsersFileError extends Error {
  constructor(
    readonly path: string,
    readonly problems: string[],
  ) {
    super(`users file ${path} cannot be used:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'UsersFileError';
  }
}

// Control characters would make names ambiguous in logs and in the session ID's MAC input.
const USER_NAME = /^[^\p{Cc}:]+$/u;

/**
 * Lines are `name:hash`, as mod_authn_file reads them: blank lines and lines starting with `#` are
 * skipped, and fields after a second `:` are ignored. Throws UsersFileError listing every bad line.
 */
export function parseHtpasswd(text: string, path: string): Map<string, string> {
  const users = new Map<string, string>();
  const firstLine = new Map<string, number>();
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    const number = index + 1;
    if (line === '' || line.startsWith('#')) return;
    const [name = '', hash = ''] = line.split(':');
    if (!line.includes(':') || !USER_NAME.test(name)) {
      problems.push(`line ${number}: not "name:hash"`);
    } else if (firstLine.has(name)) {
      problems.push(`line ${number}: user "${name}" is already on line ${firstLine.get(name)}`);
    } else if (!passwordHashKind(hash)) {
      problems.push(
        `line ${number}: user "${name}" has a hash gridgate cannot check (it reads bcrypt, apr1/MD5 and {SHA}; ` +
          'make one with htpasswd -B)',
      );
    } else {
      users.set(name, hash);
    }
    firstLine.set(name, firstLine.get(name) ?? number);
  });
  if (problems.length > 0) throw new UsersFileError(path, problems);
  return users;
}

/** At start-up: a file that is missing or unreadable stops the server with its path in the message. */
export function readHtpasswdFileSync(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseHtpasswd(text, path);
}

export async function readHtpasswdFile(path: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseHtpasswd(text, path);
}

function unreadable(path: string, error: unknown): UsersFileError {
  return new UsersFileError(path, [`cannot read it: ${(error as Error).message}`]);
}
