/**
 * The user a namespaced browser's Chromium runs as: one of its own, with a group of its own, both numbered
 * after its chromedriver's pid (the browser's handle), so every process of the server knows it from the handle.
 * No account exists for it; it owns only the browser's profile, its home and its session directory, so what
 * Chromium reads or writes for a page or a client (`file://` URLs, a file input's path, a download) is what
 * any user may, and never gridgate's own files, another session's profile, uploads or downloads. chromedriver
 * stays root inside the namespace: its group (0) is what lets it reach the namespace's DevTools port
 * (browser-namespace.ts), which Chromium's group cannot.
 */
import { lchown, lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// Far above the IDs a distribution hands out (people from 1000, systemd's dynamic users up to 65519, nobody
// 65534) and below 2^31, which some tools read as signed; pids stay below 2^22 (Linux's pid_max limit).
const BROWSER_ID_BASE = 0x40000000;
const PID_LIMIT = 2 ** 22;

/** The user and group ID of the browser `handle` (a chromedriver's pid); undefined for any other handle. */
export function browserUserOf(handle: string): number | undefined {
  const pid = Number(handle);
  return /^\d+$/.test(handle) && pid > 0 && pid < PID_LIMIT ? BROWSER_ID_BASE + pid : undefined;
}

/** A command line that runs Chromium as the browser's user (setpriv execs it: the pid stays Chromium's). */
export function asBrowserUser(id: number, chromium: string, args: readonly string[]): [string, string[]] {
  return ['setpriv', [`--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--', chromium, ...args]];
}

/** Gives `path`, and all under it when a folder, to the browser's user; links are changed, never followed. */
export async function giveToBrowser(path: string, id: number): Promise<void> {
  await lchown(path, id, id);
  if (!(await lstat(path)).isDirectory()) return;
  for (const entry of await readdir(path)) await giveToBrowser(join(path, entry), id);
}

/**
 * The first folder from `dir` up that other users cannot pass through (no search permission for others), or
 * undefined: a browser's user must reach its profile and home, which are made in the temporary folder.
 */
export async function closedToBrowsers(dir: string): Promise<string | undefined> {
  for (let folder = dir; ; folder = dirname(folder)) {
    if (((await stat(folder)).mode & 0o001) === 0) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}
