/**
 * Starting and stopping the servers of the proxy benchmark (nginx, Selenium Grid): each in its own
 * process group, registered with teardown.ts before it is ready, so none outlives the benchmark.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { until } from '../test/support/until';
import { groupGone, signalGroup } from './process-tree';
import { track } from './teardown';

const STOP_TIMEOUT_MS = 10_000;

/** A port nothing listens on right now (nginx and Grid need one named in their config). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServerProcess {
  pid: number;
  /** What it wrote to stdout and stderr (the last 64 KiB), for error messages. */
  output(): string;
  /** Asks the group to stop (`signal`), then SIGKILLs whatever is left after 10 s. */
  stop(): Promise<void>;
}

/**
 * Spawns `command` as the leader of a new process group. `stopSignal` is what the program takes as
 * "shut down" (nginx: SIGQUIT finishes requests, SIGTERM is fast; the JVM: SIGTERM).
 */
export function startServerProcess(
  command: string,
  args: string[],
  stopSignal: NodeJS.Signals,
  cwd?: string,
): ServerProcess {
  const child: ChildProcess = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${command}`);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-65_536);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const untrack = track({ stop: () => stop(), kill: () => signalGroup(pid, 'SIGKILL') });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const exited = child.exitCode !== null || child.signalCode !== null ? undefined : once(child, 'exit');
      signalGroup(pid, stopSignal);
      if (!(await groupGone(pid, STOP_TIMEOUT_MS))) {
        signalGroup(pid, 'SIGKILL');
        await groupGone(pid, STOP_TIMEOUT_MS);
      }
      await exited;
    })().finally(untrack);
    return stopping;
  };
  return { pid, output: () => output, stop };
}

/**
 * Waits until `server` is ready (`ready` polled every 200 ms; one that throws is not listening yet). One
 * that is not within `ms` is stopped and `cleanUp` run (its temporary files), and the error carries what
 * the server wrote.
 */
export async function readyOrStopped(
  what: string,
  ms: number,
  server: ServerProcess,
  ready: () => Promise<boolean>,
  cleanUp: () => Promise<void> = async () => {},
): Promise<void> {
  try {
    await until(ready, `${what} is ready`, { timeoutMs: ms, intervalMs: 200 });
  } catch (error) {
    await server.stop();
    await cleanUp();
    throw new Error(`${what} did not become ready within ${ms / 1000} s:\n${server.output()}`, {
      cause: error,
    });
  }
}
