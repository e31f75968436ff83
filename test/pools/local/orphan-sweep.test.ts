import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PRIMARY_DIRECTORY_PREFIX } from '../../../functions/adapters/cluster/primary-directory';
import { SESSION_DIRECTORY_PREFIX } from '../../../functions/adapters/fs/session-folder-names';
import {
  closeBrowserNamespace,
  namespacesUnavailable,
  openBrowserNamespace,
} from '../../../functions/pools/local/browser-namespace';
import {
  LAUNCHED_BY_ENV,
  PROFILE_PREFIX,
  SCRATCH_PREFIX,
} from '../../../functions/pools/local/chromedriver-launcher';
import { sweepOrphans } from '../../../functions/pools/local/orphan-sweep';
import { until } from '../../support/until';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The pid of a process that has already ended: the owner of whatever it left behind. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

/** Resolves once the process has exec'd the named program (spawn returns before that happens). */
async function runningAs(pid: number | undefined, name: string): Promise<void> {
  await until(() => readProcessName(pid) === name, `process ${pid} runs ${name}`);
}

function readProcessName(pid: number | undefined): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

describe('sweepOrphans', () => {
  it('kills browsers and removes profiles whose gridgate process is gone, and leaves a live owner’s alone', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gridgate-sweep-test-'));
    directories.push(directory);
    const dead = deadPid();
    const orphanProfile = join(directory, `${PROFILE_PREFIX}${dead}-abc123`);
    const liveProfile = join(directory, `${PROFILE_PREFIX}${process.pid}-def456`);
    // A session's uploads and downloads are swept the same way.
    const orphanFiles = join(directory, `${SESSION_DIRECTORY_PREFIX}${dead}-ghi789`);
    const liveFiles = join(directory, `${SESSION_DIRECTORY_PREFIX}${process.pid}-jkl012`);
    // And a browser's TMPDIR, where chromedriver and Chromium keep their own temporary folders.
    const orphanScratch = join(directory, `${SCRATCH_PREFIX}${dead}-mno345`);
    const liveScratch = join(directory, `${SCRATCH_PREFIX}${process.pid}-pqr678`);
    // And the socket folder of a primary with worker processes.
    const orphanPrimary = join(directory, `${PRIMARY_DIRECTORY_PREFIX}${dead}-stu901`);
    const livePrimary = join(directory, `${PRIMARY_DIRECTORY_PREFIX}${process.pid}-vwx234`);
    const owned = [orphanProfile, liveProfile, orphanFiles, liveFiles, orphanScratch, liveScratch];
    for (const profile of [...owned, orphanPrimary, livePrimary]) {
      mkdirSync(profile);
      writeFileSync(join(profile, 'Preferences'), '{}');
    }
    const orphan = spawn('/usr/bin/chromedriver', ['--port=0'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(dead) },
    });
    const live = spawn('/usr/bin/chromedriver', ['--port=0'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(process.pid) },
    });
    // A mark that is not a pid is not gridgate's: never taken for a dead owner's.
    const foreign = spawn('/usr/bin/chromedriver', ['--port=0'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [LAUNCHED_BY_ENV]: `someone-else-${dead}` },
    });
    const orphanExited = new Promise((resolve) => orphan.once('exit', resolve));
    try {
      // The sweep recognises a browser by its process name, which is the launcher's until exec.
      await Promise.all([orphan, live, foreign].map((child) => runningAs(child.pid, 'chromedriver')));

      const result = await sweepOrphans(directory);

      // Other orphans on this machine may go too; these two are the ones this test can vouch for.
      expect(result.processes).toBeGreaterThanOrEqual(1);
      expect(result.profiles).toBe(4);
      await orphanExited;
      expect(live.exitCode).toBeNull();
      // A fixed window on purpose: nothing happens to the foreign one, so there is no event to wait for;
      // a wrongly killed one would be reported within it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(foreign.exitCode).toBeNull();
      expect(foreign.signalCode).toBeNull();
      expect(existsSync(orphanProfile)).toBe(false);
      expect(existsSync(liveProfile)).toBe(true);
      expect(existsSync(orphanFiles)).toBe(false);
      expect(existsSync(liveFiles)).toBe(true);
      expect(existsSync(orphanScratch)).toBe(false);
      expect(existsSync(liveScratch)).toBe(true);
      expect(existsSync(orphanPrimary)).toBe(false);
      expect(existsSync(livePrimary)).toBe(true);
    } finally {
      orphan.kill('SIGKILL');
      live.kill('SIGKILL');
      foreign.kill('SIGKILL');
    }
  });
});

describe.skipIf(await namespacesUnavailable())('sweepOrphans and a browser namespace’s pasta', () => {
  it('kills a pasta whose gridgate process is gone, by the name it runs under (passt, or its build for this CPU)', async () => {
    const namespace = await openBrowserNamespace({
      gridPorts: [],
      env: { ...process.env, [LAUNCHED_BY_ENV]: String(deadPid()) },
      signal: new AbortController().signal,
    });
    try {
      expect(readProcessName(namespace.pasta.child.pid)).toMatch(/^(pasta|passt)/);
      const directory = mkdtempSync(join(tmpdir(), 'gridgate-sweep-test-'));
      directories.push(directory);
      await sweepOrphans(directory);
      await namespace.pasta.exited;
      expect(namespace.pasta.child.signalCode).toBe('SIGKILL');
    } finally {
      await closeBrowserNamespace(namespace);
    }
  });
});

describe('sweepOrphans and Playwright servers', () => {
  /** A stand-in for a server or bridge script: a node program by that name that only waits to be killed. */
  function scriptNamed(name: string): string {
    const folder = mkdtempSync(join(tmpdir(), 'gridgate-sweep-scripts-'));
    directories.push(folder);
    const script = join(folder, name);
    writeFileSync(script, 'setInterval(() => {}, 60_000);\n');
    return script;
  }

  /** A session folder named after `owner`, as a server's working folder is. */
  function sessionFolder(owner: number): string {
    const folder = join(
      mkdtempSync(join(tmpdir(), 'gridgate-sweep-test-')),
      `${SESSION_DIRECTORY_PREFIX}${owner}-abc`,
    );
    directories.push(dirname(folder));
    mkdirSync(folder);
    return folder;
  }

  it('kills servers and bridges whose grid is gone, by either mark, and leaves live grids’ and other programs alone', async () => {
    const dead = deadPid();
    const server = scriptNamed('attach-server.cjs');
    const bridge = scriptNamed('devtools-pipe.cjs');
    const other = scriptNamed('other-server.cjs');
    const run = (script: string, cwd: string, mark?: string) => {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
      if (mark !== undefined) env[LAUNCHED_BY_ENV] = mark;
      return spawn(process.execPath, [script], { detached: true, stdio: 'ignore', cwd, env });
    };
    const elsewhere = dirname(server);
    const children = {
      // A server marked by its dead grid's pid; a bridge known only by its dead grid's session folder.
      orphanServer: run(server, elsewhere, String(dead)),
      orphanBridge: run(bridge, sessionFolder(dead)),
      // The same of a grid still running.
      liveServer: run(server, elsewhere, String(process.pid)),
      liveBridge: run(bridge, sessionFolder(process.pid)),
      // Not gridgate's: unmarked, a mark that is not a pid, another script in a dead grid's folder with its mark.
      unmarked: run(server, elsewhere),
      foreignMark: run(bridge, elsewhere, `someone-else-${dead}`),
      otherScript: run(other, sessionFolder(dead), String(dead)),
    };
    const all = Object.values(children);
    const exited = (child: (typeof all)[number]) => new Promise((resolve) => child.once('exit', resolve));
    const orphansExited = Promise.all([exited(children.orphanServer), exited(children.orphanBridge)]);
    try {
      await Promise.all(
        all.map((child) =>
          until(() => readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').includes('.cjs'), 'started'),
        ),
      );

      const empty = mkdtempSync(join(tmpdir(), 'gridgate-sweep-empty-'));
      directories.push(empty);
      const result = await sweepOrphans(empty);

      expect(result.processes).toBeGreaterThanOrEqual(2);
      await orphansExited;
      // A fixed window on purpose: nothing happens to the others, so there is no event to wait for; a wrongly
      // killed one would be reported within it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const name of ['liveServer', 'liveBridge', 'unmarked', 'foreignMark', 'otherScript'] as const) {
        expect({ name, exitCode: children[name].exitCode, signal: children[name].signalCode }).toEqual({
          name,
          exitCode: null,
          signal: null,
        });
      }
    } finally {
      for (const child of all) child.kill('SIGKILL');
    }
  });
});
