import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../functions/entry/load-config';
import { CollectingLogger } from '../support/fakes';

const dir = mkdtempSync(join(tmpdir(), 'gridgate-load-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// /bin/true stands in for Chromium and chromedriver: loading must not try to install anything.
const POOLS = {
  browsers: { chrome: { versions: { '1': { pools: ['local'] } } } },
  pools: { local: { kind: 'local', chromium: '/bin/true', chromedriver: '/bin/true' } },
};

async function usersFileOf(usersFile: string): Promise<string | undefined> {
  const path = join(dir, 'gridgate.json');
  writeFileSync(path, JSON.stringify({ ...POOLS, usersFile }));
  const { config } = await loadConfig(['--config', path], {}, new CollectingLogger());
  return config.usersFile;
}

describe('loadConfig: the file to reload', () => {
  it('returns the config file’s path and stat fingerprint, for reloads', async () => {
    const path = join(dir, 'watched.json');
    writeFileSync(path, JSON.stringify(POOLS));
    const loaded = await loadConfig([`--config=${path}`], {}, new CollectingLogger());
    expect(loaded.path).toBe(path);
    expect(loaded.fingerprint).toMatch(/^\d+:\d+:\d+:/);
  });
});

describe('loadConfig: usersFile', () => {
  it('takes a relative usersFile from the config file’s folder, not the working directory', async () => {
    expect(await usersFileOf('users.htpasswd')).toBe(join(dir, 'users.htpasswd'));
    expect(await usersFileOf('../etc/users')).toBe(join(dir, '..', 'etc', 'users'));
  });

  it('keeps an absolute usersFile as it is', async () => {
    expect(await usersFileOf('/etc/gridgate/users.htpasswd')).toBe('/etc/gridgate/users.htpasswd');
  });
});
