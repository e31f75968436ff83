/**
 * A probe, not a part of `npm run bench`: the CPU one session's start and end cost each kind of process, by
 * Chromium's process type (browser, zygote, renderer, the top-chrome WebUI renderer, GPU, each utility
 * service) and by program (chromedriver, pasta), on a bare chromedriver and through gridgate with `isolation`
 * "namespace" and "none", by turns. A session here: create, one navigation to a loopback page, DELETE, then
 * 2 s for what follows (the teardown, the replacement ready chromedriver). Processes below this one are read
 * every 20 ms and each one's CPU is kept as last seen: a process born and gone between two readings is missed
 * (ip, nft, chown, setpriv: see the bench README's timelines), and gridgate's own Node is this process, not
 * counted here (`npm run bench -- --only new-session` counts it).
 *
 *   npx tsx bench/chromium-type-probe.ts [sessions per path, default 6]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { medianInterval } from './stats';
import { startSessionPaths } from './three-session-paths';
import { WebDriverClient } from './webdriver-client';

const SAMPLE_MS = 20;
const AFTER_MS = 2000;
// Linux counts /proc CPU times in clock ticks of 1/100 s (USER_HZ).
const TICKS_PER_SECOND = 100;

interface Seen {
  /** starttime in /proc/PID/stat: a pid taken again is another process. */
  start: string;
  kind: string;
  last: number;
}

const sessions = Number(process.argv[2] ?? 6);
const { paths, pagePort, close } = await startSessionPaths(
  () => '<!doctype html><title>p</title><p>page</p>',
);
const pageUrl = `http://127.0.0.1:${pagePort}/`;
const client = new WebDriverClient();
const seen = new Map<number, Seen>();
/** Path name → kind → CPU seconds. */
const spent = new Map<string, Map<string, number>>();
let current = 'between sessions';

/** What a process is: Chromium's by its --type (and utility sub-type), any other by its program name. */
function kindOf(pid: number, program: string): string {
  if (program !== 'chromium' && program !== 'exe') return program;
  let args: string;
  try {
    // Chromium rewrites its command line into one string (setproctitle): read it as text.
    args = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return program;
  }
  const type = /--type=(\S+)/.exec(args)?.[1] ?? 'browser';
  const service = /--utility-sub-type=(\S+)/.exec(args)?.[1];
  return `chromium ${type}${service ? ` ${service}` : ''}${args.includes('--top-chrome-webui') ? ' (top-chrome WebUI)' : ''}`;
}

/** Every process below this one, by one reading of /proc. */
function below(): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let queue = [process.pid], next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function sample(): void {
  for (const pid of below()) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue;
    }
    const program = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    const start = fields[19] as string;
    let known = seen.get(pid);
    if (!known || known.start !== start) {
      known = { start, kind: kindOf(pid, program), last: 0 };
      seen.set(pid, known);
    }
    // A start script becomes setpriv, then Chromium; a forked zygote child becomes a renderer.
    known.kind = kindOf(pid, program);
    if (own > known.last) {
      const byKind = spent.get(current) ?? new Map<string, number>();
      spent.set(current, byKind);
      byKind.set(known.kind, (byKind.get(known.kind) ?? 0) + own - known.last);
      known.last = own;
    }
  }
}

const times = new Map<string, { create: number[]; delete: number[] }>();
const timer = setInterval(sample, SAMPLE_MS);
try {
  for (let i = 0; i < sessions; i++) {
    for (const path of i % 2 ? [...paths].reverse() : paths) {
      sample();
      current = path.name;
      const started = performance.now();
      const id = await client.newSession(path.origin, path.capabilities);
      const created = performance.now();
      await client.send(path.origin, 'POST', `/session/${id}/url`, { url: pageUrl });
      const deleting = performance.now();
      await client.deleteSession(path.origin, id);
      const took = times.get(path.name) ?? { create: [], delete: [] };
      times.set(path.name, took);
      took.create.push(created - started);
      took.delete.push(performance.now() - deleting);
      await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
      sample();
      current = 'between sessions';
    }
  }
} finally {
  clearInterval(timer);
  await close();
  await client.close();
}

const ms = (samples: number[]) => {
  const m = medianInterval(samples);
  return `${m.median.toFixed(0)} (${m.low.toFixed(0)}–${m.high.toFixed(0)})`;
};
for (const path of paths) {
  const byKind = [...(spent.get(path.name) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
  const total = byKind.reduce((sum, [, seconds]) => sum + seconds, 0);
  const took = times.get(path.name) ?? { create: [], delete: [] };
  console.log(
    `\n${path.name}: CPU ${((total * 1000) / sessions).toFixed(0)} ms a session; create p50 ${ms(took.create)} ms, delete p50 ${ms(took.delete)} ms (wall clock)`,
  );
  for (const [kind, seconds] of byKind)
    console.log(`  ${kind.padEnd(58)} ${((seconds * 1000) / sessions).toFixed(1).padStart(7)} ms`);
}
