/**
 * A file's stat fingerprint, for noticing changes by polling rather than fs.watch: editors replace files
 * by rename, Kubernetes swaps a mounted ConfigMap through a symlink, and inotify events do not cross bind
 * mounts or network file systems. One stat every few seconds sees all of these (ggr polls too).
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/** What changes when the file is written in place, replaced by rename, or swapped behind a symlink. */
function describe(stats: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }) {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

export async function fingerprint(path: string): Promise<string> {
  try {
    return describe(await stat(path));
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code}`;
  }
}

export function fingerprintSync(path: string): string {
  try {
    return describe(statSync(path));
  } catch (error) {
    return `unreadable:${(error as NodeJS.ErrnoException).code}`;
  }
}
