/**
 * The script chromedriver is told is Chromium: run for real with a stand-in binary that reports what it got,
 * so the quoting, the order of flags and arguments and the exported variables are what a shell makes of them.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { chromiumStartScript } from '../../../functions/pools/local/chromium-start-script';

let folder: string;
let binary: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'gridgate-start-script-'));
  binary = join(folder, "stand-in chromium's");
  writeFileSync(
    binary,
    `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ argv: process.argv.slice(2), env: process.env }));\n`,
  );
  chmodSync(binary, 0o755);
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function runScript(script: string, args: string[]): { argv: string[]; env: Record<string, string> } {
  const path = join(folder, 'chromium');
  writeFileSync(path, script, { mode: 0o700 });
  return JSON.parse(
    execFileSync(path, args, { env: { PATH: '/usr/bin:/bin', KEPT: 'as given' } }).toString(),
  );
}

it("execs the binary with the start's flags before chromedriver's arguments and its variables set", () => {
  const script = chromiumStartScript({
    binary,
    flags: ['--first', "--with-'quote' and space", '--load-extension='],
    env: { GOOGLE_API_KEY: "it's a key", CHROMIUM_FLAGS: ' --first $HOME' },
  });
  const got = runScript(script, ['--user-data-dir=/p', '--remote-debugging-port=0']);
  expect(got.argv).toEqual([
    '--first',
    "--with-'quote' and space",
    '--load-extension=',
    '--user-data-dir=/p',
    '--remote-debugging-port=0',
    'data:,',
  ]);
  expect(got.env).toMatchObject({
    GOOGLE_API_KEY: "it's a key",
    CHROMIUM_FLAGS: ' --first $HOME',
    KEPT: 'as given',
  });
});

it('opens data:, first, as chromedriver does in a profile it makes itself, with no flags to add', () => {
  const got = runScript(chromiumStartScript({ binary, flags: [], env: {} }), ['--user-data-dir=/p']);
  expect(got.argv).toEqual(['--user-data-dir=/p', 'data:,']);
});

it('adds no page when chromedriver gave one, as it does to a BiDi session', () => {
  const got = runScript(chromiumStartScript({ binary, flags: ['--first'], env: {} }), [
    '--user-data-dir=/p',
    'data:,',
  ]);
  expect(got.argv).toEqual(['--first', '--user-data-dir=/p', 'data:,']);
});

it('opens data:, when chromedriver gives no argument at all', () => {
  expect(runScript(chromiumStartScript({ binary, flags: [], env: {} }), []).argv).toEqual(['data:,']);
});

it('runs the browser as its own user after giving it the folders chromedriver made', () => {
  const script = chromiumStartScript(
    { binary: '/usr/lib/chromium/chromium', flags: ['--a'], env: {} },
    { id: 1073741900, owned: ['/tmp/profile', "/tmp/it's home"] },
  );
  expect(script.split('\n')).toEqual([
    '#!/bin/sh',
    `chown -R -h 1073741900:1073741900 -- '/tmp/profile' '/tmp/it'\\''s home' || exit 1`,
    'for last; do :; done',
    `case "$last" in -*|'') set -- "$@" 'data:,';; esac`,
    `exec 'setpriv' '--reuid=1073741900' '--regid=1073741900' '--clear-groups' '--' '/usr/lib/chromium/chromium' '--a' "$@"`,
    '',
  ]);
});
