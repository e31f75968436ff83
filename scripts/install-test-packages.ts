/**
 * Installs the Debian packages the tests need (scripts/test-packages.txt) that are missing, the way `npm start`
 * installs Chromium: as root, or through sudo, printing the command first; where it cannot, it stops with one
 * line naming the command to run. While every package's file is there it only looks at the files. Then it
 * fetches the npm packages the tests install from their loopback registry (scripts/test-npm-packages.ts).
 *
 * vitest's global setup (vitest.config.ts), so `npm test` brings what it needs, and .ci/run's install step:
 *
 *   npx tsx scripts/install-test-packages.ts
 *
 * `npm run bench` installs its own list (scripts/bench-packages.txt) the same way, so the tests never pull in
 * what only the benchmarks run.
 */

import { readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { installPackages } from '../functions/pools/local/debian-install';
import { fetchTestNpmPackages } from './test-npm-packages';

export const TEST_PACKAGES = new URL('test-packages.txt', import.meta.url);
export const BENCH_PACKAGES = new URL('bench-packages.txt', import.meta.url);

export interface TestPackage {
  name: string;
  /** A file the package installs: there means installed. */
  file: string;
}

/** The list's lines: a package and a file each; blank lines and `#` comments are left out. */
export function parseTestPackages(text: string, listName = 'test-packages.txt'): TestPackage[] {
  return text.split('\n').flatMap((line, index) => {
    const words = line.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const [name, file] = words;
    if (words.length !== 2 || !name || !file?.startsWith('/'))
      throw new Error(`${listName} line ${index + 1}: want "package /file/it/installs", got "${line}"`);
    return [{ name, file }];
  });
}

/** The packages whose file is not there. */
export async function missingPackages(packages: TestPackage[]): Promise<TestPackage[]> {
  const present = await Promise.all(
    packages.map(({ file }) =>
      access(file).then(
        () => true,
        () => false,
      ),
    ),
  );
  return packages.filter((_, index) => !present[index]);
}

/** Installs the listed packages that are missing; throws with the command to run when it cannot. */
export async function installTestPackages(
  list = TEST_PACKAGES,
  what = "the tests' Debian packages",
  log = console.error,
): Promise<void> {
  const listName = list.pathname.split('/').pop();
  const missing = await missingPackages(parseTestPackages(readFileSync(list, 'utf8'), listName));
  if (missing.length === 0) return;
  await installPackages(
    {
      what,
      packages: missing.map(({ name }) => name),
      binaries: missing.map(({ file }) => file),
      otherwise: `Install ${missing.map(({ name }) => name).join(', ')} (or your system's equivalents) with your package manager.`,
    },
    log,
  );
  const still = await missingPackages(missing);
  if (still.length > 0)
    throw new Error(`installed, yet still missing: ${still.map(({ file }) => file).join(', ')}`);
}

/** Says why it stopped in one line (no stack trace to read past) and exits 1. */
async function installedOrExit(): Promise<void> {
  try {
    await installTestPackages();
    await fetchTestNpmPackages();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

/** vitest's global setup: before any test file runs, and before any browser starts. */
export default installedOrExit;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await installedOrExit();
