/** Runs the scripts in test/e2e/python with Debian's Python Selenium (4.8), unmodified, against a grid. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Debian's interpreter, which has python3-selenium; the python3 on PATH may be another one.
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../e2e/python/drive_grid.py', import.meta.url));
const UPLOAD_SCRIPT = fileURLToPath(new URL('../e2e/python/upload_file.py', import.meta.url));
const RECORD_SCRIPT = fileURLToPath(new URL('../e2e/python/record_session.py', import.meta.url));
const CDP_SCRIPT = fileURLToPath(new URL('../e2e/python/cdp_command.py', import.meta.url));
const MARK_SCRIPT = fileURLToPath(new URL('../e2e/python/mark_result.py', import.meta.url));
export const PYTHON_SCRIPT_TIMEOUT_MS = 140_000;

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script without blocking: the grid it talks to may live in this very process. */
export function runPythonScript(gridUrl: string, pageUrl: string): Promise<ScriptRun> {
  return runPython(SCRIPT, [gridUrl, pageUrl]);
}

/** Runs test/e2e/python/upload_file.py: send_keys of a local file into the page's file input. */
export function runPythonUpload(gridUrl: string, pageUrl: string, localPath: string): Promise<ScriptRun> {
  return runPython(UPLOAD_SCRIPT, [gridUrl, pageUrl, localPath]);
}

/** Runs test/e2e/python/record_session.py: a session asking for its video and log with selenoid:options. */
export function runPythonRecordedSession(gridUrl: string, pageUrl: string): Promise<ScriptRun> {
  return runPython(RECORD_SCRIPT, [gridUrl, pageUrl]);
}

/** Runs test/e2e/python/cdp_command.py: execute_cdp_cmd's Browser.getVersion, then a download folder outside. */
export function runPythonCdpCommand(gridUrl: string, outside: string): Promise<ScriptRun> {
  return runPython(CDP_SCRIPT, [gridUrl, outside]);
}

/** Runs test/e2e/python/mark_result.py: a session that names itself and marks its result (sauce:job-…). */
export function runPythonMarkedSession(
  gridUrl: string,
  pageUrl: string,
  result: 'passed' | 'failed',
  name: string,
): Promise<ScriptRun> {
  return runPython(MARK_SCRIPT, [gridUrl, pageUrl, result, name]);
}

/** Runs any Python file (a docs example written out) with Debian's Python selenium, on loopback only. */
export function runPython(script: string, args: string[]): Promise<ScriptRun> {
  // No proxy from the environment: every request must stay on the loopback interface.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      [script, ...args],
      { env: { ...env, NO_PROXY: '*', PYTHONUNBUFFERED: '1' }, timeout: PYTHON_SCRIPT_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The gridgate session ID the script printed. */
export function sessionIdIn(stdout: string): string {
  const id = /^session: (\S+)$/m.exec(stdout)?.[1];
  if (!id) throw new Error(`the script printed no session ID:\n${stdout}`);
  return id;
}
