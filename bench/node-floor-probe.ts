/**
 * A probe, not a part of `npm run bench`: what any Node process on the command path costs here. One bare
 * chromedriver and its session, reached straight, through a Node process that only pipes bytes
 * (node-pipe-proxy.ts: the floor), and through the plain Node proxy (plain-node-proxy.ts), taking turns of
 * four commands of the mix; p50 of each path over direct's, and each proxy's CPU per command over its turns.
 *
 *   npx tsx bench/node-floor-probe.ts [turns, default 300]
 */
import { parseConfig } from '../functions/core/config';
import { BENCH_PAGE, PROBE_MIX } from './command-latency';
import { DirectChromedriver, type LocalPool } from './direct-chromedriver';
import { threadsCpuNanos } from './process-cpu';
import type { ServerProcess } from './proxy-processes';
import { startNodePipeProxy, startPlainNodeProxy } from './reference-proxies';
import { median } from './stats';
import { WebDriverClient } from './webdriver-client';

const turns = Number(process.argv[2] ?? 300);
const WARM_UP = 2000;
type PathName = 'direct' | 'nodePipe' | 'plainNode';

const pool = parseConfig({}, { builtInBrowserVersion: 'unused' }).pools.local as LocalPool;
const driver = await DirectChromedriver.start(pool);
const proxies: ServerProcess[] = [];
const client = new WebDriverClient();
try {
  const session = await client.newSession(driver.origin, driver.capabilities);
  await client.send(driver.origin, 'POST', `/session/${session}/url`, { url: BENCH_PAGE });
  const pipe = await startNodePipeProxy(driver.origin);
  proxies.push(pipe.process);
  const plain = await startPlainNodeProxy(driver.origin);
  proxies.push(plain.process);
  const origins: Record<PathName, string> = {
    direct: driver.origin,
    nodePipe: pipe.origin,
    plainNode: plain.origin,
  };
  const pids: Partial<Record<PathName, number>> = {
    nodePipe: pipe.process.pid,
    plainNode: plain.process.pid,
  };
  const names = Object.keys(origins) as PathName[];
  // Every path runs optimized code before anything is counted.
  for (let i = 0; i < WARM_UP; i++) {
    for (const name of names) await client.send(origins[name], 'GET', `/session/${session}/timeouts`);
  }
  const ms: Record<PathName, number[]> = { direct: [], nodePipe: [], plainNode: [] };
  const cpu: Record<PathName, number> = { direct: 0, nodePipe: 0, plainNode: 0 };
  for (let turn = 0; turn < turns; turn++) {
    for (const name of turn % 2 === 0 ? names : [...names].reverse()) {
      const pid = pids[name];
      const before = pid === undefined ? 0 : threadsCpuNanos(pid);
      for (const [method, suffix, body] of PROBE_MIX) {
        ms[name].push((await client.send(origins[name], method, `/session/${session}${suffix}`, body)).ms);
      }
      if (pid !== undefined) cpu[name] += threadsCpuNanos(pid) - before;
    }
  }
  const direct = median(ms.direct);
  for (const name of names) {
    const perCommand =
      pids[name] === undefined ? '' : `, CPU ${(cpu[name] / ms[name].length / 1e3).toFixed(0)} µs a command`;
    console.log(
      `${name.padEnd(9)} p50 ${median(ms[name]).toFixed(3)} ms, ÷ direct ${(median(ms[name]) / direct).toFixed(3)}${perCommand} (${ms[name].length} commands)`,
    );
  }
  await client.deleteSession(driver.origin, session);
} finally {
  for (const proxy of proxies) await proxy.stop();
  await driver.stop();
}
