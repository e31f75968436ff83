/**
 * The local backstop of DESIGN invariant 4: browsers and profiles left behind by a gridgate process
 * that died without cleaning up (SIGKILL, out of memory) are found at the next start and removed.
 * Browsers are recognised by LAUNCHED_BY_ENV in their environment, profiles and session directories by
 * the owner's pid in their directory name, Playwright servers and their bridges by their script and either
 * mark (a bridge's environment is Playwright's choice, its working folder the server's session folder);
 * anything whose owner still runs is left alone.
 */
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PRIMARY_DIRECTORY_PREFIX } from '../../adapters/cluster/primary-directory';
import { SESSION_DIRECTORY_PREFIX } from '../../adapters/fs/session-folder-names';
import { PLAYWRIGHT_SERVER_SCRIPTS } from '../../adapters/process/playwright-server-scripts';
import { deleteNamespace, NAMESPACE_PREFIX } from './browser-namespace';
import { LAUNCHED_BY_ENV, PROFILE_PREFIX, SCRATCH_PREFIX } from './chromedriver-launcher';

// pasta: the network of a browser's namespace (browser-namespace.ts). It runs as passt (pasta is a link to it),
// or re-executes its build for this CPU (passt.avx2), whose name the process then has.
const BROWSER_NAMES = new Set(['chromium', 'chromedriver', 'pasta', 'pasta.avx2', 'passt', 'passt.avx2']);
/** Where `ip netns` keeps named network namespaces. */
const NAMESPACES = '/run/netns';
/** The folder of the socket the worker processes reach the primary by (entry/grid-primary.ts), named the same way. */
// Profiles, browsers' temporary folders, session directories (uploads, downloads) and the primary's socket
// folder, each named after the gridgate process that made it.
const OWNED_DIRECTORY = new RegExp(
  `^(?:${PROFILE_PREFIX}|${SCRATCH_PREFIX}|${SESSION_DIRECTORY_PREFIX}|${PRIMARY_DIRECTORY_PREFIX})(\\d+)-`,
);

export interface SweepResult {
  processes: number;
  profiles: number;
  /** Browsers' network namespaces, deleted once their processes are gone. */
  namespaces: number;
}

export async function sweepOrphans(directory = tmpdir(), namespaces = NAMESPACES): Promise<SweepResult> {
  const processes = await killOrphanedBrowsers();
  const profiles = await removeOrphanedProfiles(directory);
  return { processes, profiles, namespaces: await deleteOrphanedNamespaces(namespaces) };
}

async function deleteOrphanedNamespaces(directory: string): Promise<number> {
  const owned = new RegExp(`^${NAMESPACE_PREFIX}(\\d+)-`);
  let deleted = 0;
  for (const name of await readdir(directory).catch(() => [])) {
    const owner = owned.exec(name)?.[1];
    if (owner === undefined || isAlive(Number(owner))) continue;
    await deleteNamespace(name);
    deleted++;
  }
  return deleted;
}

async function killOrphanedBrowsers(): Promise<number> {
  let killed = 0;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const owner = await browserOwner(pid);
    if (owner === undefined || isAlive(owner)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {
      // It ended meanwhile.
    }
  }
  return killed;
}

/** The pid of the gridgate process that launched this browser or Playwright server process, if it is one. */
async function browserOwner(pid: string): Promise<number | undefined> {
  try {
    const name = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
    // Awaited here, so a process that ends between the listing and the read is caught below.
    if (BROWSER_NAMES.has(name)) return await launchedBy(pid);
    if (!(await runsPlaywrightServerScript(pid))) return undefined;
    return (await launchedBy(pid)) ?? (await sessionFolderOwner(pid));
  } catch {
    return undefined; // gone, or not ours to read
  }
}

/** The pid in the process's launched-by mark. Only a pid is gridgate's mark: anything else is somebody else's. */
async function launchedBy(pid: string): Promise<number | undefined> {
  const environ = (await readFile(`/proc/${pid}/environ`, 'latin1')).split('\0');
  const entry = environ.find((variable) => variable.startsWith(`${LAUNCHED_BY_ENV}=`));
  const owner = entry?.slice(LAUNCHED_BY_ENV.length + 1) ?? '';
  return /^\d+$/.test(owner) ? Number(owner) : undefined;
}

/** Whether the process runs a Playwright server's script (its first argument is one, as node runs it). */
async function runsPlaywrightServerScript(pid: string): Promise<boolean> {
  const script = (await readFile(`/proc/${pid}/cmdline`, 'latin1')).split('\0')[1] ?? '';
  return PLAYWRIGHT_SERVER_SCRIPTS.some((name) => basename(script) === name);
}

/** The pid a session folder that is the process's working folder is named after (gridgate-session-<pid>-…). */
async function sessionFolderOwner(pid: string): Promise<number | undefined> {
  const folder = basename(await readlink(`/proc/${pid}/cwd`));
  const owner = new RegExp(`^${SESSION_DIRECTORY_PREFIX}(\\d+)-`).exec(folder)?.[1];
  return owner === undefined ? undefined : Number(owner);
}

async function removeOrphanedProfiles(directory: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(directory)) {
    const owner = OWNED_DIRECTORY.exec(name)?.[1];
    if (owner === undefined || isAlive(Number(owner))) continue;
    await rm(join(directory, name), { recursive: true, force: true, maxRetries: 3 });
    removed++;
  }
  return removed;
}

/** Whether a process of this pid exists (one of another user's counts). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
