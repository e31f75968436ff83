/**
 * The npm packages the tests install the way users install them, from an npm registry: fetched here, in the
 * tests' setup, into a folder of this machine, and served to the tests from there by an npm registry on
 * loopback (test/support/fake-npm-registry.ts), since a test reaches nothing but loopback. The setup runs where
 * the registry `npm ci` used is reachable (.ci/run, vitest's global setup); while every tarball is there it
 * only looks at the files, and a tarball already in npm's cache is taken from there.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A second Playwright Test minor beside the repository's 1.65 (a user's older suite), with the playwright and
 * playwright-core it pins: the two-versions test runs it, and the grid installs its playwright-core on first use.
 */
export const OLDER_PLAYWRIGHT = '1.64.1';
export const TEST_NPM_PACKAGES = [
  `@playwright/test@${OLDER_PLAYWRIGHT}`,
  `playwright@${OLDER_PLAYWRIGHT}`,
  `playwright-core@${OLDER_PLAYWRIGHT}`,
];

/** Kept between runs and shared by checkouts: a tarball of one version never changes. */
export const TEST_NPM_TARBALLS = join(homedir(), '.cache', 'gridgate-test', 'npm-packages');

/** The file `npm pack` writes for `name@version`: `@scope/name` becomes `scope-name`. */
export function tarballFileOf(spec: string): string {
  const at = spec.lastIndexOf('@');
  const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Fetches the packages whose tarball is not in `folder` yet; throws with the command to run when it cannot. */
export async function fetchTestNpmPackages(
  specs = TEST_NPM_PACKAGES,
  folder = TEST_NPM_TARBALLS,
  log = console.error,
): Promise<void> {
  const missing = specs.filter((spec) => !existsSync(join(folder, tarballFileOf(spec))));
  if (missing.length === 0) return;
  await mkdir(folder, { recursive: true });
  // Packed into a scratch folder and renamed into place: the folder holds only whole tarballs.
  const scratch = await mkdtemp(join(folder, '.fetching-'));
  const command = ['pack', '--silent', '--prefer-offline', '--pack-destination', scratch, ...missing];
  try {
    log(`test npm packages: npm ${command.join(' ')}`);
    await run('npm', command, { cwd: scratch, timeout: 300_000 });
    for (const spec of missing)
      await rename(join(scratch, tarballFileOf(spec)), join(folder, tarballFileOf(spec)));
  } catch (error) {
    throw new Error(
      `cannot fetch the tests' npm packages (${(error as Error).message.split('\n')[0]}); run: npm ${command.join(' ')}`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
