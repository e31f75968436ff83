import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PRIMARY_DIRECTORY_PREFIX } from '../../../functions/adapters/cluster/primary-directory';
import { SESSION_DIRECTORY_PREFIX } from '../../../functions/adapters/fs/session-folder-names';
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
