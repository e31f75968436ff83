/** End to end: Debian's Python Selenium (4.8), unmodified, drives real Chromium through gridgate. */
import { describe, expect, it } from 'vitest';
import { useGridAndSite } from '../support/grid-fixture';
import {
  PYTHON_SCRIPT_TIMEOUT_MS,
  runPythonScript as runScript,
  sessionIdIn,
} from '../support/python-selenium';
import { expectSessionEnded } from './session-ended';

const SCRIPT_TIMEOUT_MS = PYTHON_SCRIPT_TIMEOUT_MS;

const env = useGridAndSite();

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
