/**
 * A probe, not a part of `npm run bench`: how long a local browser's stop keeps a DELETE waiting, against the
 * teardown that follows the answer (network namespace, profile, folders), on the launcher itself: sessions
 * started and stopped back to back, each browser in a namespace of its own when this machine can.
 *
 *   npx tsx bench/stop-split-probe.ts [sessions, default 8]
 */
import { parseConfig } from '../functions/core/config';
import { namespacesUnavailable } from '../functions/pools/local/browser-namespace';
import { ChromedriverLauncher } from '../functions/pools/local/chromedriver-launcher';
import { chromiumVersion } from '../functions/pools/local/ensure-chromium';
import type { LocalPool } from './direct-chromedriver';
import { medianInterval } from './stats';
import { WebDriverClient } from './webdriver-client';

const sessions = Number(process.argv[2] ?? 8);
const version = (await chromiumVersion('/usr/bin/chromium')) ?? 'stable';
const pool = parseConfig({}, { builtInBrowserVersion: version }).pools.local as LocalPool;
const isolated = (await namespacesUnavailable()) === undefined;
const launcher = new ChromedriverLauncher(isolated ? { isolation: { gridPorts: [] } } : {});
const client = new WebDriverClient();
const answered: number[] = [];
const tornDown: number[] = [];
try {
  for (let i = 0; i < sessions; i++) {
    const browser = await launcher.start({
      pool,
      key: `probe-${i}`,
      user: 'probe',
      idleTimeoutMs: 60_000,
      inUseMs: 3_660_000,
      capabilities: { browserName: 'chrome' },
      signal: new AbortController().signal,
    });
    const origin = `http://${browser.address}`;
    const id = await client.newSession(origin, browser.capabilities);
    await client.deleteSession(origin, id);
    const started = performance.now();
    await launcher.stop(browser.handle);
    answered.push(performance.now() - started);
    await launcher.tornDown(browser.handle);
    tornDown.push(performance.now() - started);
  }
  const line = (samples: number[]) => {
    const m = medianInterval(samples);
    return `${m.median.toFixed(0)} ms (${m.low.toFixed(0)}–${m.high.toFixed(0)})`;
  };
  console.log(`isolation: ${isolated ? 'namespace' : 'none'}, ${sessions} sessions, p50 (interval):`);
  console.log(`  stop(), which the DELETE answer waits for:        ${line(answered)}`);
  console.log(`  stop() and the teardown (what it waited for before): ${line(tornDown)}`);
} finally {
  await launcher.stopAll();
  await client.close();
}
