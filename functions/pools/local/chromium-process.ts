/**
 * Launches Chromium the way chromedriver would, but ahead of any session, for a warm browser: the same
 * switches chromedriver adds, the pool's arguments, and a DevTools port that chromedriver later attaches
 * to (goog:chromeOptions.debuggerAddress). Chromium gets its own process group, like chromedriver, so
 * stopping it also stops every helper process it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { switchName } from './chromium-switches';
import { withFeatures } from './feature-switches';
import { answers } from './http-probe';

const FEATURE_SWITCHES = new Set(['disable-features', 'enable-features']);

/**
 * What chromedriver adds to the command line when it launches Chromium itself (read from chromedriver
 * 156's launch on this platform; test/pools/local/e2e/warm-pool.test.ts compares a cold and a warm browser's command
 * line, so a chromedriver that changes them is noticed). Without them a warm browser would differ from a
 * cold one, e.g. navigator.webdriver would be false.
 */
export const CHROMEDRIVER_SWITCHES: readonly string[] = [
  '--allow-pre-commit-input',
  '--disable-background-networking',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-client-side-phishing-detection',
  '--disable-default-apps',
  '--disable-features=IgnoreDuplicateNavs,Prewarm',
  '--disable-hang-monitor',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--disable-sync',
  '--enable-automation',
  '--enable-logging',
  '--log-level=0',
  '--no-first-run',
  '--no-service-autorun',
  '--password-store=basic',
  '--test-type=webdriver',
  '--use-mock-keychain',
];
/**
 * The page chromedriver opens first in a profile it makes itself (the last argument of its launch); given a
 * profile, it opens none and Chromium shows its New Tab page, a WebUI page far costlier to start.
 */
export const CHROMEDRIVER_FIRST_PAGE = 'data:,';
const PORT_FILE = 'DevToolsActivePort';
const POLL_MS = 20;
const PROBE_TIMEOUT_MS = 5000;
// A Chromium that has not opened its DevTools port by then is stuck: the warm start fails and is retried later.
const READY_TIMEOUT_MS = 60_000;

export interface LaunchedChromium {
  child: ChildProcess;
  /** Resolves when the process ends (or could not be spawned). */
  exited: Promise<void>;
  /** host:port of its DevTools endpoint, on loopback. */
  debuggerAddress: string;
}

/**
 * The full command line arguments of a warm browser: chromedriver's switches, then the pool's (which win, but
 * feature lists are joined), then its DevTools port (0: any free one; in a namespace of its own, the one pasta
 * forwards to), and last the page chromedriver opens first.
 */
export function warmChromiumArgs(poolArgs: readonly string[], devtoolsPort = 0): string[] {
  // As chromedriver joins its feature lists with a client's: Chromium reads only the last of each switch.
  const names = new Set(poolArgs.map(switchName).filter((name) => !FEATURE_SWITCHES.has(name)));
  const fromChromedriver = CHROMEDRIVER_SWITCHES.filter((arg) => !names.has(switchName(arg)));
  const joined = withFeatures(
    withFeatures([...fromChromedriver, ...poolArgs], 'disable-features', []),
    'enable-features',
    [],
  );
  return [...joined, `--remote-debugging-port=${devtoolsPort}`, CHROMEDRIVER_FIRST_PAGE];
}

/**
 * Starts Chromium with these arguments (which must include --user-data-dir=`userDataDir`) and waits until
 * its DevTools port is open. On abort, failure or timeout the caller gets a rejection and the process
 * group is left for it to stop (`child` is handed over through `onSpawn` at once for that reason).
 */
export async function launchChromium(
  binary: string,
  args: readonly string[],
  userDataDir: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  /** Where its DevTools port is reached when not on this machine's loopback (a port forwarded into its namespace). */
  reachedAt: string | undefined,
  onSpawn: (child: ChildProcess, exited: Promise<void>) => void,
): Promise<LaunchedChromium> {
  // Chromium's logging (--enable-logging) goes nowhere: nobody reads it before a session, as with chromedriver.
  const child = spawn(binary, args, { detached: true, stdio: 'ignore', env });
  let gone = false;
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      gone = true;
      resolve();
    };
    child.once('exit', done);
    child.once('error', done);
  });
  onSpawn(child, exited);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    signal.throwIfAborted();
    if (gone) throw new Error(`Chromium exited (code ${child.exitCode}) before its DevTools port was open`);
    // The port file comes early in Chromium's start: ready means its DevTools endpoint answers too. A port
    // forwarded into a namespace is known ahead: its answer alone says ready.
    const port = reachedAt ? 0 : await devtoolsPort(userDataDir);
    const debuggerAddress = reachedAt ?? `127.0.0.1:${port}`;
    if (port !== undefined && (await answers(debuggerAddress, '/json/version', PROBE_TIMEOUT_MS)))
      return { child, exited, debuggerAddress };
    if (Date.now() > deadline)
      throw new Error(`Chromium did not open its DevTools port in ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The port in DevToolsActivePort ("<port>\n<path>\n"), once the file is complete. */
async function devtoolsPort(userDataDir: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(join(userDataDir, PORT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  // Written in one go, but read while being written it may hold only part of the first line.
  const match = /^(\d+)\n/.exec(text);
  const port = Number(match?.[1]);
  return port > 0 && port < 65536 ? port : undefined;
}
