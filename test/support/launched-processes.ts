/**
 * The chromedrivers and Chromium browsers this test process's launcher started, read from /proc: they
 * carry its pid in LAUNCHED_BY_ENV. Chromium's helper processes (--type=renderer, …) and the launcher
 * script it starts from are left out: a browser is its main process.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NAMESPACE_DEVTOOLS_PORT } from '../../functions/pools/local/browser-namespace';
import { LAUNCHED_BY_ENV } from '../../functions/pools/local/chromedriver-launcher';
import { until } from './until';

export interface LaunchedProcess {
  pid: number;
  name: 'chromedriver' | 'chromium';
  /** The command line after the program. */
  args: string[];
}

/** By default this process's; `owner`: those another gridgate process (a child server) started. */
export function launchedProcesses(name?: LaunchedProcess['name'], owner = process.pid): LaunchedProcess[] {
  const mark = `${LAUNCHED_BY_ENV}=${owner}`;
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid): LaunchedProcess[] => {
      try {
        const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        if (comm !== 'chromedriver' && comm !== 'chromium') return [];
        if (name && comm !== name) return [];
        if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) return [];
        const [program = '', ...rest] = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
        // Debian's /usr/bin/chromium is a shell script: it and its subshells are named "chromium" too
        // until it execs the browser.
        if (program.split('/').pop() !== comm) return [];
        const args = rest.slice(0, -1);
        if (args.some((arg) => arg.startsWith('--type='))) return [];
        return [{ pid: Number(pid), name: comm, args }];
      } catch {
        return []; // gone meanwhile
      }
    })
    .sort((a, b) => a.pid - b.pid);
}

/**
 * Waits until nothing `owner` (a gridgate killed outright) launched is left: the next start's sweep ends
 * such orphans before it says it started. Any gridgate of the same test run starting meanwhile sweeps the
 * same way and may be the one that ends them (and logs ORPHANS_REMOVED), so tests check that they are
 * gone, not whose log line says so.
 */
export async function orphansGone(owner: number): Promise<void> {
  await until(
    () => launchedProcesses(undefined, owner).length === 0,
    `what process ${owner} launched is gone`,
    { timeoutMs: 5000 },
  );
}

/**
 * The port on the grid's loopback where a Chromium's DevTools answers; undefined if none. A browser in its own
 * network namespace listens on NAMESPACE_DEVTOOLS_PORT inside it, and the pasta process serving that namespace
 * forwards a loopback port to it; a browser without one writes the port it took to DevToolsActivePort.
 */
export function devtoolsPort(chromium: LaunchedProcess): number | undefined {
  return forwardedDevtoolsPort(chromium) ?? devtoolsActivePort(chromium);
}

function devtoolsActivePort(chromium: LaunchedProcess): number | undefined {
  const profile = chromium.args
    .find((arg) => arg.startsWith('--user-data-dir='))
    ?.slice('--user-data-dir='.length);
  if (!profile) return undefined;
  try {
    return Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

/** pasta's `-t <address>/<outside>:<inside>` forward to DevTools, for the pasta serving Chromium's namespace. */
function forwardedDevtoolsPort(chromium: LaunchedProcess): number | undefined {
  try {
    const namespace = readlinkSync(`/proc/${chromium.pid}/ns/net`);
    if (namespace === readlinkSync('/proc/self/ns/net')) return undefined;
    const forward = pastaArgs()
      .find((args) => {
        const name = args[args.indexOf('--netns') + 1];
        return name !== undefined && `net:[${statSync(`/run/netns/${name}`).ino}]` === namespace;
      })
      ?.find((arg) => arg.endsWith(`:${NAMESPACE_DEVTOOLS_PORT}`));
    return Number(forward?.match(/\/(\d+):\d+$/)?.[1]) || undefined;
  } catch {
    return undefined; // gone meanwhile
  }
}

function pastaArgs(): string[][] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const [program = '', ...args] = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
        return program.split('/').pop()?.startsWith('pasta') && args.includes('--netns') ? [args] : [];
      } catch {
        return [];
      }
    });
}

/**
 * A session's Chromium (its main process): by the profile chromedriver reports for a browser it launched
 * (`chrome.userDataDir`), which stays one of its own where DevTools ports repeat (9222 in every browser's
 * network namespace); for a warm browser chromedriver attached to, by the DevTools port it reports.
 */
export function chromiumWithProfile(capabilities: {
  get(name: string): unknown;
}): LaunchedProcess | undefined {
  const profile = (capabilities.get('chrome') as { userDataDir?: string } | undefined)?.userDataDir;
  const options = capabilities.get('goog:chromeOptions') as { debuggerAddress?: string } | undefined;
  const port = Number(options?.debuggerAddress?.split(':').pop());
  return launchedProcesses('chromium').find((process) =>
    profile ? process.args.includes(`--user-data-dir=${profile}`) : devtoolsPort(process) === port,
  );
}
