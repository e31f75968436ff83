/**
 * Installs Debian packages a local pool needs (Chromium and chromedriver; ffmpeg for videos) when their
 * binaries are missing: with apt-get, as root or through sudo; otherwise it says how to install them.
 */
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import type { Logger } from '../../core/ports';

export interface DebianPackages {
  /** What they are, for messages: "Chromium and chromedriver". */
  what: string;
  packages: string[];
  /** Where Debian puts their binaries. */
  binaries: string[];
  /** What to do on a system without apt-get. */
  otherwise: string;
}

/** Installs the packages unless every binary is there; throws with the command to run when it cannot. */
export async function installMissing(
  wanted: DebianPackages,
  logger: Logger,
  log = console.error,
): Promise<void> {
  const present = await Promise.all(wanted.binaries.map(isExecutable));
  if (present.every(Boolean)) return;
  await installPackages(wanted, log, (command) =>
    logger.log('BROWSER_INSTALL', { missing: wanted.binaries, command }),
  );
}

/**
 * Installs the packages with apt-get, as root or through sudo, saying the command first (`starting` hears it
 * too); throws with the command to run when it cannot, or the system's own way when there is no apt-get.
 */
export async function installPackages(
  wanted: DebianPackages,
  log = console.error,
  starting: (command: string) => void = () => {},
): Promise<void> {
  const install = `apt-get update && apt-get install -y ${wanted.packages.join(' ')}`;
  const asRoot = process.getuid?.() === 0;
  const hasApt = await isExecutable('/usr/bin/apt-get');
  const hasSudo = !asRoot && (await isExecutable('/usr/bin/sudo'));
  if (!hasApt || (!asRoot && !hasSudo)) {
    throw new Error(
      `gridgate needs ${wanted.what} at ${listed(wanted.binaries)}. ` +
        (hasApt ? `Install them with: sudo sh -c '${install}'` : wanted.otherwise),
    );
  }
  const command = asRoot ? ['sh', '-c', install] : ['sudo', 'sh', '-c', install];
  starting(command.join(' '));
  log(
    `gridgate: ${wanted.what} missing; installing Debian's ${listed(wanted.packages)} with: ${command.join(' ')}`,
  );
  await run(command, install, wanted.what);
}

export async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function run([command, ...args]: string[], install: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`installing ${what} failed (${signal ?? `exit ${code}`}); run: ${install}`)),
    );
  });
}

/** "a", "a and b", "a, b and c": a list of many (the tests' packages) reads as a sentence. */
function listed(words: string[]): string {
  return words.length < 3 ? words.join(' and ') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
