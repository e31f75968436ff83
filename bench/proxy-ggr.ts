/**
 * ggr (aerokube's Go Grid Router, ../shared/peers/ggr) in front of the fake upstream: the router gridgate
 * replaces, measured on the same path in the same run. It runs as its README there says: a users file
 * and a quota directory in a temporary directory, one host (the fake upstream) for `chrome`, listening
 * on loopback. Absent binary: the benchmark says so and measures the other paths.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { freePort, readyOrStopped, type ServerProcess, startServerProcess } from './proxy-processes';
import { track } from './teardown';

/** Where the peer lives beside the repository. */
export const GGR_BINARY = fileURLToPath(new URL('../../shared/peers/ggr/ggr', import.meta.url));

const READY_MS = 10_000;
export const GGR_USER = 'bench';
export const GGR_PASSWORD = 'bench-password';

export interface Ggr {
  /** ggr serves WebDriver under /wd/hub only. */
  origin: string;
  process: ServerProcess;
}

export const ggrAvailable = (): boolean => existsSync(GGR_BINARY);

/**
 * Starts ggr routing `chrome` to `upstream` (http://127.0.0.1:PORT), once it answers /ping. `version` is the
 * quota's only (and default) version: ggr writes it into the forwarded `browserVersion`, so in front of a real
 * chromedriver it must be the browser's own version (chromedriver compares versions strictly, as
 * chromium-capabilities.ts notes); the fake upstream takes any.
 */
export async function startGgr(upstream: string, version = '1.0'): Promise<Ggr> {
  const dir = await mkdtemp(join(tmpdir(), 'gridgate-bench-ggr-'));
  const untrack = track({ stop: () => rm(dir, { recursive: true, force: true }), kill: () => {} });
  const { hostname, port: upstreamPort } = new URL(upstream);
  await writeFile(join(dir, 'users.htpasswd'), `${GGR_USER}:${bcrypt.hashSync(GGR_PASSWORD, 4)}\n`);
  await mkdir(join(dir, 'quota'));
  await writeFile(
    join(dir, 'quota', `${GGR_USER}.xml`),
    `<qa:browsers xmlns:qa="urn:config.gridrouter.qatools.ru">
  <browser name="chrome" defaultVersion="${version}">
    <version number="${version}">
      <region name="1"><host name="${hostname}" port="${upstreamPort}" count="1"/></region>
    </version>
  </browser>
</qa:browsers>
`,
  );
  const port = await freePort();
  const process = startServerProcess(
    GGR_BINARY,
    ['-listen', `127.0.0.1:${port}`, '-users', join(dir, 'users.htpasswd'), '-quotaDir', join(dir, 'quota')],
    'SIGTERM',
  );
  const origin = `http://127.0.0.1:${port}`;
  await readyOrStopped(
    'ggr',
    READY_MS,
    process,
    async () => (await fetch(`${origin}/ping`)).ok,
    async () => {
      await rm(dir, { recursive: true, force: true });
      untrack();
    },
  );
  return { origin, process };
}

/** The Basic credentials ggr's new-session route asks for (its command route asks none). */
export const GGR_AUTHORIZATION = `Basic ${Buffer.from(`${GGR_USER}:${GGR_PASSWORD}`).toString('base64')}`;
