/** The gridgate under test: started in a child process (gridgate-child.ts) and stopped with all its browsers. */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { ChildReady } from './gridgate-child';
import { commandLine, descendants, signalGroup } from './process-tree';
import { track } from './teardown';

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export class GridgateServer {
  private constructor(
    readonly pid: number,
    readonly origin: string,
    readonly chromiumVersion: string,
    private readonly child: ChildProcess,
    /** Asks gridgate to end its sessions and exit (it stops every browser first); kills it if it will not. */
    readonly stop: () => Promise<void>,
  ) {}

  /** CPU time (user + system, µs) the gridgate process has used so far. */
  async cpuMicros(): Promise<number> {
    const answer = once(this.child, 'message');
    this.child.send('cpu-usage');
    const [message] = (await answer) as [{ cpuUsage: NodeJS.CpuUsage }];
    return message.cpuUsage.user + message.cpuUsage.system;
  }

  /**
   * `cpuProfDir`: write a V8 CPU profile of the gridgate process there when it exits. `warm`: the
   * pool's chromedrivers kept started ahead of demand.
   */
  static async start(cpuProfDir?: string, warm = 0): Promise<GridgateServer> {
    const profiling = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
    // process.execArgv carries tsx's loader, so the child runs TypeScript too.
    const child = fork(new URL('./gridgate-child.ts', import.meta.url), [String(warm)], {
      execArgv: [...process.execArgv, ...profiling],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // A session of its own, as every other server measured (proxy-processes.ts, direct-chromedriver.ts):
      // with the kernel's autogroup scheduling a child in the benchmark's session shares one CPU share with
      // the benchmark's client (and the suite's pytest), which the bare chromedriver has to itself.
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error('cannot start the gridgate process');
    // Registered before it is ready, so an interrupted start is stopped too.
    const untrack = track({ stop: () => stop(), kill: () => killTree(child) });
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= stopChild(child).finally(untrack);
      return stopping;
    };
    try {
      const ready = await waitReady(child);
      return new GridgateServer(pid, ready.url, ready.chromiumVersion, child, stop);
    } catch (error) {
      await stop();
      throw error;
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (child.connected) child.send('stop');
  else child.kill('SIGTERM');
  const timer = setTimeout(() => killTree(child), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function waitReady(child: ChildProcess): Promise<ChildReady> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => finish(message as ChildReady);
    const onExit = (code: number | null) =>
      finish(new Error(`gridgate exited (${code}) before it was ready`));
    const finish = (result: ChildReady | Error) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => finish(new Error('gridgate did not start in time')), READY_TIMEOUT_MS);
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

/** SIGKILL for gridgate's chromedrivers (each leads its own process group, Chromium inside), then gridgate. */
function killTree(child: ChildProcess): void {
  if (child.pid !== undefined) {
    for (const pid of descendants(child.pid)) {
      if (commandLine(pid)[0]?.endsWith('chromedriver')) signalGroup(pid, 'SIGKILL');
    }
  }
  child.kill('SIGKILL');
}
