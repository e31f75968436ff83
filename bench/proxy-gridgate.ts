/** gridgate for the proxy benchmark: proxy-gridgate-child.ts in a child process, and its memory from /proc. */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { SERVER_NODE_FLAGS } from '../scripts/server-build.mjs';
import type { LiveHeap, ProxyChildReady } from './proxy-gridgate-child';
import { track } from './teardown';

const READY_MS = 30_000;
const STOP_MS = 10_000;

export interface ProxyGridgate {
  origin: string;
  pid: number;
  /** V8 heap in use after a full garbage collection, in bytes. */
  liveHeap(): Promise<number>;
  stop(): Promise<void>;
}

export interface ProxyGridgateOptions {
  /** Sessions the hub pool holds at once (default 4). */
  maxSessions?: number;
  /** A bundle of proxy-gridgate-child.ts to run with plain node instead of the source under tsx. */
  bundle?: string;
}

export async function startProxyGridgate(
  upstream: string,
  { maxSessions = 4, bundle }: ProxyGridgateOptions = {},
): Promise<ProxyGridgate> {
  // process.execArgv carries tsx's loader, so the child runs TypeScript too.
  const entry = bundle ?? new URL('./proxy-gridgate-child.ts', import.meta.url);
  const child = fork(entry, [upstream, String(maxSessions)], {
    // The server's own V8 flags, as npm start gives them. --expose-gc only lets liveHeap() collect
    // garbage on request; nothing else calls it.
    execArgv: [...(bundle ? [] : process.execArgv), ...SERVER_NODE_FLAGS, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A session of its own, as every other server measured (proxy-processes.ts): with the kernel's
    // autogroup scheduling, a child in the benchmark's session shared one CPU share with wrk, which
    // every other path had to itself.
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('cannot start the gridgate process');
  const untrack = track({ stop: () => stop(), kill: () => child.kill('SIGKILL') });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stopChild(child).finally(untrack);
    return stopping;
  };
  try {
    const [ready] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) =>
        Promise.reject(new Error(`gridgate exited (${code}) before it was ready`)),
      ),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('gridgate did not start in time')), READY_MS).unref(),
      ),
    ])) as [ProxyChildReady];
    const liveHeap = async () => {
      const answer = once(child, 'message');
      child.send('live-heap');
      return ((await answer) as [LiveHeap])[0].liveHeapBytes;
    };
    return { origin: ready.url, pid, liveHeap, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (child.connected) child.send('stop');
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  await exited;
  clearTimeout(timer);
}

/** Resident set size now and its peak (VmHWM) since start or the last resetPeakRss, in bytes. */
export async function rssOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, our own process); false where that is not allowed. */
export async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
