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

describe('loadConfig on AWS', () => {
  const FARGATE = {
    browsers: { chrome: { versions: { '131': { pools: ['fargate'] } } } },
    pools: { fargate: { kind: 'ecs' } },
  };
  const DEPLOYMENT = JSON.stringify({
    table: 'Gridgate-Sessions',
    pools: {
      fargate: {
        cluster: 'gridgate',
        taskDefinition: 'gridgate-fargate:2',
        subnets: ['subnet-1'],
        securityGroups: ['sg-1'],
        networks: ['10.0.0.0/16'],
      },
    },
  });
  const SECRET = 's'.repeat(40);

  function fargateFile(): string {
    const path = join(dir, 'fargate.json');
    writeFileSync(path, JSON.stringify(FARGATE));
    return path;
  }

  it('lays GRIDGATE_DEPLOYMENT over the file: the pool gets its cluster, the store its table', async () => {
    const env = { GRIDGATE_DEPLOYMENT: DEPLOYMENT, GRIDGATE_SECRET: SECRET };
    const loaded = await loadConfig(['--config', fargateFile()], env, new CollectingLogger());
    expect(loaded.config.pools.fargate).toMatchObject({
      cluster: 'gridgate',
      taskDefinition: 'gridgate-fargate:2',
    });
    expect(loaded.config.store).toEqual({ kind: 'dynamodb', table: 'Gridgate-Sessions' });
    expect(loaded.deployment).toBe(DEPLOYMENT);
    expect(loaded.webFunction).toBe(false);
  });

  it('refuses an ecs pool that nothing deployed, naming each missing key', async () => {
    await expect(loadConfig(['--config', fargateFile()], {}, new CollectingLogger())).rejects.toThrow(
      /pools\.fargate\.cluster: not set[\s\S]*pools\.fargate\.networks: not set/,
    );
  });

  it('refuses a random signing key where routers share a store: each would refuse the others’ IDs', async () => {
    await expect(
      loadConfig(['--config', fargateFile()], { GRIDGATE_DEPLOYMENT: DEPLOYMENT }, new CollectingLogger()),
    ).rejects.toThrow(/GRIDGATE_SECRET/);
  });

  it('listens where a Lambda Web Function says, and offers no WebSockets there', async () => {
    const env = {
      GRIDGATE_DEPLOYMENT: DEPLOYMENT,
      GRIDGATE_SECRET: SECRET,
      AWS_LAMBDA_HTTP_ENDPOINT: '127.0.0.1:8080',
    };
    const loaded = await loadConfig(['--config', fargateFile()], env, new CollectingLogger());
    expect(loaded.config).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(loaded.webFunction).toBe(true);
  });
});
