/**
 * What Debian's /usr/bin/chromium wrapper gives the real browser, worked out by running the wrapper itself.
 * The wrapper is a shell script that checks the CPU, sources /etc/chromium.d/* to build CHROMIUM_FLAGS, exports
 * a few variables and only then execs /usr/lib/chromium/chromium: a dozen programs (uname, grep, expr, findmnt,
 * ls, tr, …) before every browser, 0.78 s of wall time on a loaded 2-core machine. Here it runs once, unchanged,
 * in a mount namespace of its own where the real binary's path holds a probe that reports the command line and
 * environment it was given; a pool then execs the real binary with those, and a Debian update to the wrapper or
 * to /etc/chromium.d applies at the next start. Anything else (another distribution, a Chromium of the user's,
 * a wrapper that no longer ends in that exec) keeps the configured binary as it is.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's layout: the wrapper script and the binary it execs. */
export const DEBIAN_LAYOUT: WrapperLayout = {
  wrapper: '/usr/bin/chromium',
  binary: '/usr/lib/chromium/chromium',
};

/** The only argument the probe run passes: the wrapper keeps its caller's arguments after its own flags. */
const MARK = '--gridgate-wrapper-probe';
// The wrapper's own programs take a second or so under load; one stuck far longer is not waited for.
const PROBE_TIMEOUT_MS = 30_000;

export interface WrapperLayout {
  wrapper: string;
  /** What the wrapper execs. */
  binary: string;
}

/** How a pool's Chromium is started: the program, the flags before chromedriver's, and what is added to its environment. */
export interface ChromiumStart {
  binary: string;
  /** Put before the arguments chromedriver (or a warm launch) passes, where the wrapper puts its flags. */
  flags: readonly string[];
  /** Set over the environment the browser is given, as the wrapper exports them. */
  env: Readonly<Record<string, string>>;
}

/** The configured binary as it is: what every pool used before, and what a layout not Debian's keeps. */
export const asConfigured = (chromium: string): ChromiumStart => ({ binary: chromium, flags: [], env: {} });

export interface WrapperProbe {
  /** The environment the wrapper runs with (a browser's); what it adds or changes is what is kept. */
  env: NodeJS.ProcessEnv;
  /** A folder of the caller's (it removes it after): the probe's working directory, where the probe is written. */
  folder: string;
  /** Files bound over others for the probe run only (a test's /etc/chromium.d). */
  overlays?: readonly (readonly [source: string, target: string])[];
}

/**
 * The start `chromium` gets: when it is Debian's wrapper, the real binary with the wrapper's flags and
 * variables, or a string saying why the wrapper could not be worked out; any other binary as configured.
 */
export async function wrapperStart(
  chromium: string,
  probe: WrapperProbe,
  layout: WrapperLayout = DEBIAN_LAYOUT,
): Promise<ChromiumStart | string> {
  if (!(await isWrapper(chromium, layout))) return asConfigured(chromium);
  const { folder } = probe;
  try {
    const probeFile = join(folder, 'probe');
    // node adds nothing to the environment and reports argv as given; a shell would add a PWD of its own.
    await writeFile(
      probeFile,
      `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ argv: process.argv.slice(1), env: process.env }));\n`,
      { mode: 0o755 },
    );
    const binds = [...(probe.overlays ?? []), [probeFile, layout.binary] as const];
    const mounts = binds.map((_, i) => `mount --bind "$${2 * i + 1}" "$${2 * i + 2}"`);
    const reported = await run(
      'unshare',
      [
        // Root makes the mount namespace itself; anyone else, inside a user namespace of their own.
        ...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']),
        ...['--mount', '--propagation', 'private', '--'],
        ...['sh', '-c', `${mounts.join(' && ')} && shift ${2 * binds.length} && exec "$@"`, 'sh'],
        ...binds.flat(),
        layout.wrapper,
        MARK,
      ],
      { env: probe.env, cwd: folder, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20 },
    );
    return startFromProbe(reported.stdout, probe.env, layout);
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message?: string };
    return `the wrapper's probe run failed: ${(stderr || message || String(error)).trim()}`;
  }
}

/** Whether `chromium` is the layout's wrapper script, with the binary it execs in place. */
async function isWrapper(chromium: string, layout: WrapperLayout): Promise<boolean> {
  const [program, wrapper] = await Promise.all(
    [chromium, layout.wrapper].map((path) => realpath(path).catch(() => undefined)),
  );
  if (program === undefined || program !== wrapper) return false;
  const head = await readFile(program).then((bytes) => bytes.subarray(0, 2).toString('latin1'));
  return (
    head === '#!' &&
    (await access(layout.binary, constants.X_OK).then(
      () => true,
      () => false,
    ))
  );
}

/** The probe's report: argv as the wrapper exec'd it, and its environment against the one given. */
function startFromProbe(
  stdout: string,
  given: NodeJS.ProcessEnv,
  layout: WrapperLayout,
): ChromiumStart | string {
  let report: { argv?: unknown; env?: unknown };
  try {
    report = JSON.parse(stdout);
  } catch {
    return `${layout.wrapper} did not exec ${layout.binary}`;
  }
  const argv = Array.isArray(report.argv) ? report.argv.map(String) : [];
  if (argv[0] !== layout.binary || argv.at(-1) !== MARK)
    return `${layout.wrapper} did not exec ${layout.binary} with its caller's arguments last`;
  const env = (report.env ?? {}) as Record<string, string>;
  const removed = Object.keys(given).filter((name) => given[name] !== undefined && !(name in env));
  if (removed.length) return `${layout.wrapper} removes ${removed.join(', ')} from the environment`;
  const added = Object.fromEntries(
    // PWD is the working directory the shell found, set by any sh script: not the wrapper's setting.
    Object.entries(env).filter(([name, value]) => name !== 'PWD' && given[name] !== value),
  );
  return { binary: layout.binary, flags: argv.slice(1, -1), env: added };
}
