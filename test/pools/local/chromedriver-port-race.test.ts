/**
 * chromedriver --port=0 takes a free IPv6 port, then asks for the same number on IPv4 and exits if another
 * process holds it. The launcher starts a new chromedriver then (a new free port), a bounded number of
 * times; any other early exit is reported at once. A script in front of the real chromedriver fails the
 * first starts the way chromedriver does.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PoolConfig, parseConfig } from '../../../functions/core/config';
import { ChromedriverLauncher } from '../../../functions/pools/local/chromedriver-launcher';

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;
const BUILT_IN = parseConfig({}, { builtInBrowserVersion: '1' }).pools.local as LocalPool;

// chromedriver's own words when the IPv4 bind loses the race.
const PORT_TAKEN =
  '[1796128199.260][SEVERE]: bind() failed: Address already in use (98)\nIPv4 port not available. Exiting...';

let dir: string;
let launcher: ChromedriverLauncher;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gridgate-port-race-'));
  launcher = new ChromedriverLauncher();
});

afterEach(async () => {
  await launcher.stopAll();
  await rm(dir, { recursive: true, force: true });
});

/** A chromedriver that fails its first `failures` starts with `message`, then is the real one. */
async function flakyChromedriver(failures: number, message: string): Promise<string> {
  const script = join(dir, 'chromedriver');
  const count = join(dir, 'starts');
  await writeFile(
    script,
    `#!/bin/sh
echo x >> '${count}'
if [ "$(wc -l < '${count}')" -le ${failures} ]; then
  echo 'Starting ChromeDriver on port 0'
  printf '%s\\n' '${message}' >&2
  exit 1
fi
exec /usr/bin/chromedriver "$@"
`,
  );
  await chmod(script, 0o755);
  return script;
}

const starts = async () => (await readFile(join(dir, 'starts'), 'utf8')).split('\n').filter(Boolean).length;

function launch(chromedriver: string) {
  return launcher.start({
    pool: { ...BUILT_IN, chromedriver },
    key: 'k',
    user: 'u',
    idleTimeoutMs: 60_000,
    inUseMs: 3_660_000,
    capabilities: { browserName: 'chrome' },
    signal: new AbortController().signal,
  });
}

describe('chromedriver losing its port at start', () => {
  it('starts a new chromedriver when the first ones lose the IPv4 port race', async () => {
    const browser = await launch(await flakyChromedriver(2, PORT_TAKEN));
    const status = await fetch(`http://${browser.address}/status`);
    expect(status.status).toBe(200);
    expect(await starts()).toBe(3);
    expect(launcher.running()).toEqual([browser.handle]);
  }, 60_000);

  it('gives up after three lost races, saying why, and leaves nothing running', async () => {
    await expect(launch(await flakyChromedriver(10, PORT_TAKEN))).rejects.toThrow(/Address already in use/);
    expect(await starts()).toBe(3);
    expect(launcher.running()).toEqual([]);
  }, 60_000);

  it('does not retry any other early exit', async () => {
    await expect(launch(await flakyChromedriver(10, 'unknown option --bogus'))).rejects.toThrow(
      /exited \(code 1\) before it was ready: .*unknown option/s,
    );
    expect(await starts()).toBe(1);
  }, 60_000);
});
