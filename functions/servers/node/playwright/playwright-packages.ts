/**
 * The playwright-core package that serves a Playwright client of a given version: gridgate's own when its
 * major.minor is the client's, else that major.minor's latest patch, installed from the npm registry on first
 * use into a cache folder (Playwright refuses a server of another major.minor, HTTP 428, and its protocol does
 * change between minor versions). Installs are made in a scratch folder and renamed into place, so a cache
 * holds only whole packages, and two first uses of one version at once share one install.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { sessionNotCreated } from '../../../core/errors';
import { majorMinor } from '../../../core/socket-session-request';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 300_000;
const MAJOR_MINOR = /^\d{1,3}\.\d{1,3}$/;
// An absolute path ("A complete log … in: /root/.npm/_logs/…", "path /…"), not a URL's "//".
const NAMES_A_PATH = /(?:^|[\s'"(=:])\/[\w.]/;

/** Where installed versions are kept when the config names no folder. */
export const DEFAULT_PLAYWRIGHT_CACHE = join(homedir(), '.cache', 'gridgate', 'playwright');

export class PlaywrightPackages {
  private readonly installs = new Map<string, Promise<string>>();

  constructor(private readonly cache: string = DEFAULT_PLAYWRIGHT_CACHE) {}

  /** The folder of a playwright-core whose major.minor is `version`'s (gridgate's own one when none is asked). */
  async folderFor(version: string | undefined): Promise<string> {
    const own = ownPackage();
    if (version === undefined || (own && majorMinor(own.version) === majorMinor(version))) {
      if (own) return own.folder;
      if (version === undefined)
        throw sessionNotCreated('no Playwright version was asked and none is installed');
    }
    const wanted = majorMinor(version as string);
    if (!MAJOR_MINOR.test(wanted)) throw sessionNotCreated(`"${version}" is not a Playwright version`);
    const folder = join(this.cache, wanted, 'node_modules', 'playwright-core');
    if (existsSync(join(folder, 'package.json'))) return folder;
    let install = this.installs.get(wanted);
    if (!install) {
      install = this.install(wanted, folder).finally(() => this.installs.delete(wanted));
      this.installs.set(wanted, install);
    }
    return install;
  }

  private async install(wanted: string, folder: string): Promise<string> {
    const versionFolder = dirname(dirname(folder));
    await mkdir(this.cache, { recursive: true });
    const scratch = await mkdtemp(join(this.cache, `.installing-${wanted}-`));
    try {
      // The latest patch of that major.minor; no scripts run (playwright-core has none, and none is wanted).
      await run(
        'npm',
        [
          'install',
          '--no-save',
          '--no-audit',
          '--no-fund',
          '--ignore-scripts',
          '--prefix',
          scratch,
          `playwright-core@~${wanted}.0`,
        ],
        { timeout: INSTALL_TIMEOUT_MS },
      );
      await rm(versionFolder, { recursive: true, force: true });
      await rename(scratch, versionFolder);
      return folder;
    } catch (error) {
      await rm(scratch, { recursive: true, force: true });
      const reason = npmReason(String((error as { stderr?: string }).stderr ?? ''));
      throw sessionNotCreated(
        `cannot install Playwright ${wanted} from the npm registry${reason ? `: ${reason}` : ''}`,
        // npm's whole output, the command and the cache's paths: the grid's log's (socket-session-failure.ts).
        { cause: error },
      );
    }
  }
}

/**
 * npm's error code and its first line that says more (the registry's answer, or the address it could not
 * reach), from npm's output: what a user needs to fix their registry setting. Never a line naming a path of
 * this machine (npm's log file, the cache folder).
 */
function npmReason(output: string): string {
  const lines = output
    .split('\n')
    .filter((line) => /^npm (error|ERR!) /.test(line) && !NAMES_A_PATH.test(line))
    .map((line) => line.replace(/^npm (error|ERR!) /, '').trim());
  const code = lines.find((line) => line.startsWith('code '));
  const detail = lines.find((line) => line !== '' && !/^(code|syscall|errno) /.test(line));
  return [code, detail].filter(Boolean).join('; ');
}

/** gridgate's own playwright-core, if it has one. */
function ownPackage(): { folder: string; version: string } | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('playwright-core/package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return { folder: dirname(manifest), version };
  } catch {
    return undefined;
  }
}
