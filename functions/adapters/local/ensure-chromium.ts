/** Makes sure the local pools' Chromium and chromedriver exist, installing Debian's packages when it can. */
import { execFile, spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { PoolConfig } from '../../core/config';
import type { Logger } from '../../core/ports';

const PACKAGES = ['chromium', 'chromium-driver'];
const DEBIAN_BINARIES = ['/usr/bin/chromium', '/usr/bin/chromedriver'];
const INSTALL = `apt-get update && apt-get install -y ${PACKAGES.join(' ')}`;

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
  const custom = missing.filter((path) => !DEBIAN_BINARIES.includes(path));
  if (custom.length > 0)
    throw new Error(
      `not found or not executable: ${custom.join(', ')} (check the local pools in the config)`,
    );
  const asRoot = process.getuid?.() === 0;
  const hasApt = await isExecutable('/usr/bin/apt-get');
  const hasSudo = !asRoot && (await isExecutable('/usr/bin/sudo'));
  if (!hasApt || (!asRoot && !hasSudo)) {
    throw new Error(
      `gridgate needs Chromium and chromedriver at ${DEBIAN_BINARIES.join(' and ')}. ` +
        (hasApt
          ? `Install them with: sudo sh -c '${INSTALL}'`
          : 'Install Chromium and its chromedriver with your package manager, then point the local pool\'s "chromium" and "chromedriver" keys at them.'),
    );
  }
  const command = asRoot ? ['sh', '-c', INSTALL] : ['sudo', 'sh', '-c', INSTALL];
  logger.log('BROWSER_INSTALL', { missing, command: command.join(' ') });
  log(
    `gridgate: Chromium is missing; installing Debian's ${PACKAGES.join(' and ')} with: ${command.join(' ')}`,
  );
  await run(command);
}

export async function chromiumVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)(binary, ['--version'], { timeout: 15_000 });
    return /(\d+(?:\.\d+)+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function run([command, ...args]: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`installing Chromium failed (exit ${code}); run: ${INSTALL}`)),
    );
  });
}
