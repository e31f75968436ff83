/**
 * `npm start` as a child process (the production build, scripts/start-server.mjs) with a config file
 * written for it and the environment a user would give it, so a test can kill it as an operator or a
 * crash would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SERVER_NODE_FLAGS } from '../../scripts/server-build.mjs';

/** `npm start`'s command after `node`, less the server's own arguments. */
export const NODE_SERVER_ARGS = [...SERVER_NODE_FLAGS, 'scripts/start-server.mjs'];

export interface NodeServerProcess {
  child: ChildProcess;
  /** The config file it was started with (a test may rewrite it and reload). */
  configFile: string;
  /** http://127.0.0.1:PORT once SERVER_STARTED is logged; rejects if the process exits first. */
  url: Promise<string>;
  /** Every JSON log line so far. */
  lines: { event: string; [field: string]: unknown }[];
  exited: Promise<number | null>;
  /** What it wrote to stderr so far (the lines meant for people). */
  stderr(): string;
  /** Kills it if it still runs (SIGKILL) and removes its config file. */
  dispose(): void;
  /**
   * Ends it as a user does (SIGTERM), so it stops what it started (browsers, the chromedriver it keeps
   * ready), then disposes; SIGKILL only when it has not exited within `graceMs`. After a SIGKILL a kept
   * chromedriver runs on until some later start's sweep, which the suite's leftover check may not wait for.
   */
  stop(graceMs?: number): Promise<void>;
}

export type ServerOutput = Pick<NodeServerProcess, 'url' | 'lines' | 'exited' | 'stderr'>;

/**
 * What a gridgate child process says, however it was started (stdout and stderr piped): its JSON log
 * lines, its stderr, and its URL once SERVER_STARTED is logged.
 */
export function followServer(child: ChildProcess): ServerOutput {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines: NodeServerProcess['lines'] = [];
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const entry = JSON.parse(line) as NodeServerProcess['lines'][number];
      lines.push(entry);
      if (entry.event === 'SERVER_STARTED') resolve(entry.url as string);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  url.catch(() => {}); // the caller awaits it; an exit after the start is not an error here
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { url, lines, exited, stderr: () => stderr };
}

export function startNodeServer(config: unknown, env: NodeJS.ProcessEnv = {}): NodeServerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-head-'));
  const file = join(dir, 'gridgate.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [...NODE_SERVER_ARGS, '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const output = followServer(child);
  const dispose = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    child,
    configFile: file,
    ...output,
    dispose,
    async stop(graceMs = 8000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([output.exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      dispose();
    },
  };
}
