/**
 * Whether a path on this machine lies inside a local session's folder (session-directories.ts), as the
 * browser would find it: `..` resolved, then every symbolic link in the part of the path that exists, so a
 * link planted anywhere on the way cannot lead out. The folder need not exist yet (a session makes it when
 * first needed); the answer is then about the path it will have.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { HostPathContext } from '../../core/host-path-rules';
import type { HostPathBounds } from '../../core/pool-runtime';
import { sessionDirectoryOf } from './session-directories';

/**
 * The bounds of the sessions of the local browsers the gridgate process `owner` launched (this process by
 * default; the primary's pid in a worker, which serves their commands but launched none).
 */
export function sessionFolderBounds(owner?: number): HostPathBounds {
  return {
    hostPaths: (handle) => sessionFolderContext(handle, owner),
    folderOf: (handle) => sessionDirectoryOf(handle, owner),
  };
}

/**
 * The checks' view of the folder of the browser `handle` launched by the gridgate process `owner`; a handle
 * that names no folder allows no path at all.
 */
export function sessionFolderContext(handle: string, owner?: number): HostPathContext {
  const folder = sessionDirectoryOf(handle, owner);
  if (!folder) return { folder: '(none)', downloads: '(none)', inside: async () => false };
  return { folder, downloads: join(folder, 'downloads'), inside: (path) => isInside(folder, path) };
}

/** Whether `path` lies inside `folder`; a path whose links cannot be followed (a dangling one) does not. */
export async function isInside(folder: string, path: string): Promise<boolean> {
  try {
    const [realFolder, realPath] = await Promise.all([realLocation(folder), realLocation(path)]);
    const within = relative(realFolder, realPath);
    return within === '' || (within !== '..' && !within.startsWith(`..${sep}`) && !isAbsolute(within));
  } catch {
    return false;
  }
}

/**
 * The path with its existing part's links resolved (the real path of the deepest ancestor that exists,
 * then the rest as written): what the browser would reach, or make, by that name now. A dangling link on the
 * way throws (realpath), as it leads somewhere that does not exist yet.
 */
async function realLocation(path: string): Promise<string> {
  let existing = resolve(path);
  const rest: string[] = [];
  while (!(await exists(existing))) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(basename(existing));
    existing = parent;
  }
  return join(await realpath(existing), ...rest);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
