/**
 * Where a plain script is found (CommonJS that node runs as is, in a process of its own, never bundled): in
 * the source tree beside the module that runs it, and in the production build in the folder of the same name
 * beside the built entry, where scripts/server-build.mjs copies each such folder's scripts.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The path of the script `name` of the source folder `folder` (its last name: `playwright`, `local`), for
 * the module at `moduleUrl` (its import.meta.url), which in a build sits beside the entry or in its chunks/.
 */
export function plainScript(moduleUrl: string, folder: string, name: string): string {
  const here = dirname(fileURLToPath(moduleUrl));
  return basename(here) === folder ? join(here, name) : join(here.replace(/\/chunks$/, ''), folder, name);
}
