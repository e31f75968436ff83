/** Makes sure the local pools' Chromium and chromedriver exist, installing Debian's packages when it can. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PoolConfig } from '../../core/config';
import type { Logger } from '../../core/ports';
import { installMissing, isExecutable } from './debian-install';

const CHROMIUM = {
  what: 'Chromium and chromedriver',
  packages: ['chromium', 'chromium-driver'],
  binaries: ['/usr/bin/chromium', '/usr/bin/chromedriver'],
  otherwise:
    'Install Chromium and its chromedriver with your package manager, then point the local pool\'s "chromium" and "chromedriver" keys at them.',
};

type LocalPaths = Pick<Extract<PoolConfig, { kind: 'local' }>, 'chromium' | 'chromedriver'>;

export async function ensureChromium(
  pools: LocalPaths[],
  logger: Logger,
  log = console.error,
): Promise<void> {
  const wanted = [...new Set(pools.flatMap((pool) => [pool.chromium, pool.chromedriver]))];
  const missing = (
    await Promise.all(wanted.map(async (path) => ((await isExecutable(path)) ? [] : [path])))
  ).flat();
  if (missing.length === 0) return;
  const custom = missing.filter((path) => !CHROMIUM.binaries.includes(path));
  if (custom.length > 0)
    throw new Error(
      `not found or not executable: ${custom.join(', ')} (check the local pools in the config)`,
    );
  await installMissing(CHROMIUM, logger, log);
}

export async function chromiumVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)(binary, ['--version'], { timeout: 15_000 });
    return /(\d+(?:\.\d+)+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}
