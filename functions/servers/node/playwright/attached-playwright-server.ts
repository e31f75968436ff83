/**
 * A Playwright server serving one local session's Chromium (attach-server.cjs, a child process in a group of
 * its own), for a client of the server's own major.minor. Its "browser" reaches the session's Chromium only
 * through the checked DevTools socket it is given, so Playwright's CDP traffic is held to the session's folder
 * as any CDP client's; its environment is a browser's (browser-environment.ts), HOME and TMPDIR in the
 * session's folder, so its profile and artifacts folders go with the session.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { plainScript } from '../../../adapters/fs/plain-script';
import { browserEnvironment, LAUNCHED_BY_ENV } from '../../../adapters/process/browser-environment';
import {
  ATTACH_SERVER_SCRIPT,
  DEVTOOLS_PIPE_SCRIPT,
} from '../../../adapters/process/playwright-server-scripts';
import { type Group, stopGroup } from '../../../adapters/process/process-group';
import { sessionNotCreated } from '../../../core/errors';

// Where this machine's loopback is not what a namespaced session's pages reach (browser-namespace.ts): the
// server's port is no page's to find, and its path is Playwright's random one besides.
const SERVER_HOST = '127.0.0.2';
const READY_TIMEOUT_MS = 30_000;

export interface AttachedPlaywrightServer {
  /** ws://host:port/<random path> of the server, for the client's socket. */
  wsEndpoint: string;
  /** Stops the server and its bridge; idempotent. */
  stop(): Promise<void>;
}

export interface AttachOptions {
  /** The folder of the playwright-core package to serve with (playwright-packages.ts). */
  playwrightCore: string;
  /** The Unix socket of the session's checked DevTools endpoint. */
  devtoolsSocket: string;
  /** The session's folder: the server's HOME and TMPDIR. */
  folder: string;
  /** The grid's pid, the server's launched-by mark (a worker's server is the primary's grid's). */
  launchedBy: number;
  signal: AbortSignal;
}

export async function startAttachedPlaywrightServer(
  options: AttachOptions,
): Promise<AttachedPlaywrightServer> {
  const child = spawn(
    process.execPath,
    [playwrightScript(ATTACH_SERVER_SCRIPT), options.playwrightCore, SERVER_HOST],
    {
      detached: true,
      cwd: options.folder,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...browserEnvironment(options.folder),
        [LAUNCHED_BY_ENV]: String(options.launchedBy),
        GRIDGATE_DEVTOOLS_SOCKET: options.devtoolsSocket,
        // Resolved from the scripts' folder: the repository's ws, or the one a build puts beside them.
        GRIDGATE_WS_MODULE: createRequire(playwrightScript(DEVTOOLS_PIPE_SCRIPT)).resolve('ws'),
      },
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const group: Group = { child, exited };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stopGroup(group);
    return stopping;
  };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  try {
    const wsEndpoint = await firstLine(child.stdout, exited, options.signal, () => stderr);
    return { wsEndpoint, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A script of this folder's, beside this module or beside the built server's entry (plain-script.ts). */
function playwrightScript(name: string): string {
  return plainScript(import.meta.url, 'playwright', name);
}

function firstLine(
  stdout: NodeJS.ReadableStream,
  exited: Promise<void>,
  signal: AbortSignal,
  stderr: () => string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(failed('did not start in time', stderr()))),
      READY_TIMEOUT_MS,
    );
    const onAbort = () => settle(() => reject(sessionNotCreated('the client went away')));
    signal.addEventListener('abort', onAbort, { once: true });
    exited.then(
      () => settle(() => reject(failed('exited', stderr()))),
      () => {}, // an exit promise never rejects
    );
    createInterface({ input: stdout }).once('line', (line) =>
      settle(() => {
        try {
          resolve((JSON.parse(line) as { wsEndpoint: string }).wsEndpoint);
        } catch {
          reject(failed('answered no endpoint', line));
        }
      }),
    );
  });
}

/** Said without the server's output (a stack, paths of the grid's files): that is the log's, as the cause. */
function failed(what: string, output: string) {
  return sessionNotCreated(`the Playwright server for the session ${what}`, {
    cause: new Error(output.trim() || 'no output'),
  });
}
