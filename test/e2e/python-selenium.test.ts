/** End to end: Debian's Python Selenium (4.8), unmodified, drives real Chromium through gridgate. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import { expectSessionEnded } from './session-ended';

// Debian's interpreter, which has python3-selenium; the python3 on PATH may be another one.
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/drive_grid.py', import.meta.url));
const SCRIPT_TIMEOUT_MS = 140_000;

const env = useGridAndSite();

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script without blocking: the grid it talks to lives in this very process. */
function runScript(gridUrl: string, pageUrl: string): Promise<ScriptRun> {
  // No proxy from the environment: every request must stay on the loopback interface.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      [SCRIPT, gridUrl, pageUrl],
      { env: { ...env, NO_PROXY: '*', PYTHONUNBUFFERED: '1' }, timeout: SCRIPT_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function sessionIdIn(stdout: string): string {
  const id = /^session: (\S+)$/m.exec(stdout)?.[1];
  if (!id) throw new Error(`the script printed no session ID:\n${stdout}`);
  return id;
}

describe('Python Selenium through gridgate', () => {
  it(
    'fills in the form, takes a PNG screenshot, handles cookies and a second window, then quits',
    async () => {
      const run = await runScript(`${env.grid.url}/wd/hub`, `${env.site.url}/`);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const checks = [...run.stdout.matchAll(/^ok: (.+)$/gm)].map((match) => match[1]);
      expect(checks).toEqual([
        'title',
        'heading',
        'result text',
        'form fields',
        'script',
        'screenshot is a PNG',
        'screenshot is not trivial',
        'server cookie',
        'added cookie',
        'cookie names',
        'second window text',
        'one window left',
        'back in the first window',
      ]);
      expect(run.stdout).toMatch(/^passed: 13 checks$/m);
      await expectSessionEnded(env.grid, sessionIdIn(run.stdout));
    },
    SCRIPT_TIMEOUT_MS + 10_000,
  );

  it(
    'exits non-zero when a check fails, and still ends the session',
    async () => {
      // The second page has another title, so the script's first check must fail.
      const run = await runScript(env.grid.url, `${env.site.url}/second`);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("AssertionError: title: expected 'gridgate test page', got 'second page'");
      expect(run.stdout).not.toMatch(/^passed:/m);
      await expectSessionEnded(env.grid, sessionIdIn(run.stdout));
    },
    SCRIPT_TIMEOUT_MS + 10_000,
  );
});
