/**
 * Reading the port a chromedriver started with `--port=0` listens on, from its "started successfully"
 * line; an exit before it, an abort, or the port race below end the wait.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const STARTED = /ChromeDriver was started successfully on port (\d+)/;
/**
 * Given --port=0, chromedriver takes a free IPv6 port and then asks for the same number on IPv4, which
 * another process may hold; it exits saying so, and a new chromedriver (a new free port) is the remedy.
 */
const PORT_RACE = /Address already in use|port not available/i;

/** chromedriver lost its port to another process between its IPv6 and IPv4 binds. */
export class PortRaceError extends Error {}

export function waitForPort(child: ChildProcess, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onStderr = (chunk: Buffer) => output.push(chunk.toString());
    child.stderr?.on('data', onStderr);
    const done = (settle: () => void) => {
      lines.close();
      // From now on chromedriver's output is not needed, but its pipes must keep draining.
      child.stderr?.off('data', onStderr);
      child.stdout?.resume();
      child.stderr?.resume();
      signal.removeEventListener('abort', onAbort);
      child.off('error', onError);
      child.off('exit', onExit);
      settle();
    };
    const onAbort = () => done(() => reject(signal.reason));
    const onError = (error: Error) =>
      done(() => reject(new Error(`cannot start chromedriver: ${error.message}`)));
    const onExit = (code: number | null) =>
      done(() => {
        const message = `chromedriver exited (code ${code}) before it was ready: ${output.join('').trim()}`;
        reject(PORT_RACE.test(message) ? new PortRaceError(message) : new Error(message));
      });
    lines.on('line', (line) => {
      output.push(line);
      const port = STARTED.exec(line)?.[1];
      if (port) done(() => resolve(Number(port)));
    });
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', onError);
    child.once('exit', onExit);
    // Aborted while the profile directory was made: an abort event will not come again.
    if (signal.aborted) onAbort();
  });
}
