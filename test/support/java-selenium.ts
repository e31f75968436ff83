/**
 * Runs test/e2e/java/DriveGrid.java with Selenium's Java client (the classes inside the Selenium server jar)
 * through Java 17's single-file launch, with the README's Java example as the line that starts the session.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptRun } from './python-selenium';
import { SELENIUM_JAR } from './selenium-grid';

const PROGRAM = fileURLToPath(new URL('../e2e/java/DriveGrid.java', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
// The README's examples talk to a grid started with `npm start`.
const README_GRID = 'http://localhost:4444';
// Compiling against the jar is slow on a loaded machine, then a browser starts.
export const JAVA_TIMEOUT_MS = 180_000;

/** The README's Java example: the code lines of its ```java block. */
export function readmeJavaExample(): string {
  const block = /```java\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'))?.[1];
  if (!block) throw new Error('the README has no Java example');
  const code = block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));
  if (!code.join('\n').includes(README_GRID))
    throw new Error(`the README's Java example has no ${README_GRID}`);
  return code.join('\n');
}

/** Runs the program against `gridUrl`, without blocking (the grid may live in this very process). */
export async function runJavaProgram(
  gridUrl: string,
  pageUrl: string,
  uploadFile?: string,
): Promise<ScriptRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-java-'));
  try {
    const example = readmeJavaExample().replaceAll(README_GRID, gridUrl);
    const source = readFileSync(PROGRAM, 'utf8').replace(/^ *README_EXAMPLE$/m, example);
    writeFileSync(join(dir, 'DriveGrid.java'), source);
    // No proxy from the environment: every request must stay on the loopback interface.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
    const args = [
      '-cp',
      SELENIUM_JAR,
      join(dir, 'DriveGrid.java'),
      pageUrl,
      ...(uploadFile ? [uploadFile] : []),
    ];
    return await new Promise((resolve) => {
      execFile('java', args, { env, timeout: JAVA_TIMEOUT_MS }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one of test/e2e/java's programs by its file name with these arguments, without blocking. */
export function runJavaFile(file: string, args: string[]): Promise<ScriptRun> {
  const program = fileURLToPath(new URL(`../e2e/java/${file}`, import.meta.url));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  return new Promise((resolve) => {
    execFile(
      'java',
      ['-cp', SELENIUM_JAR, program, ...args],
      { env, timeout: JAVA_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
