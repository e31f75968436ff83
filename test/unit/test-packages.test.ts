/**
 * The one list of Debian packages the tests need (scripts/test-packages.txt): read by vitest's global setup
 * and by .ci/run alike, each package with a file whose presence says it is installed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BENCH_PACKAGES,
  missingPackages,
  parseTestPackages,
  TEST_PACKAGES,
} from '../../scripts/install-test-packages';

const scratch = mkdtempSync(join(tmpdir(), 'gridgate-test-packages-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the list of Debian packages the tests need', () => {
  it('reads a package and a file from each line, leaving blank lines and comments out', () => {
    expect(
      parseTestPackages(
        '# what the tests run\n\nxvfb   /usr/bin/Xvfb\nnovnc\t/usr/share/novnc/vnc.html  # noVNC\n',
      ),
    ).toEqual([
      { name: 'xvfb', file: '/usr/bin/Xvfb' },
      { name: 'novnc', file: '/usr/share/novnc/vnc.html' },
    ]);
  });

  it('refuses a line without a file, with more than one, or with a relative path, naming the line', () => {
    expect(() => parseTestPackages('xvfb /usr/bin/Xvfb\nx11vnc\n')).toThrow(/line 2: want "package \/file/);
    expect(() => parseTestPackages('xvfb /usr/bin/Xvfb /usr/bin/xvfb-run')).toThrow(/line 1/);
    expect(() => parseTestPackages('xvfb usr/bin/Xvfb')).toThrow(/line 1/);
  });

  it('names each package once, with an absolute path, the CI packages among them', () => {
    const packages = parseTestPackages(readFileSync(TEST_PACKAGES, 'utf8'));
    const names = packages.map(({ name }) => name);
    expect(new Set(names).size).toBe(names.length);
    // What the Xvfb, VNC, Python, Lambda runtime and Prometheus tests were failing without on a fresh machine.
    expect(names).toEqual(
      expect.arrayContaining([
        'chromium',
        'chromium-driver',
        'xvfb',
        'x11vnc',
        'websockify',
        'novnc',
        'python3-selenium',
        'cmake',
        'g++',
        'prometheus',
      ]),
    );
  });

  it('keeps what only the benchmarks run (wrk, nginx, perf) in a list of their own, out of npm test', () => {
    const tests = parseTestPackages(readFileSync(TEST_PACKAGES, 'utf8'));
    const bench = parseTestPackages(readFileSync(BENCH_PACKAGES, 'utf8'), 'bench-packages.txt');
    expect(bench.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['wrk', 'nginx-light', 'linux-perf']),
    );
    expect(tests.map(({ name }) => name)).not.toContain('wrk');
    expect(tests.map(({ name }) => name)).not.toContain('nginx-light');
    expect(tests.map(({ name }) => name)).not.toContain('linux-perf');
    // A package both lists name is installed the same way, whichever list finds it missing first.
    const testFiles = new Map(tests.map(({ name, file }) => [name, file]));
    for (const { name, file } of bench) if (testFiles.has(name)) expect(testFiles.get(name), name).toBe(file);
  });

  it('names the list a bad line is in', () => {
    expect(() => parseTestPackages('wrk\n', 'bench-packages.txt')).toThrow(/^bench-packages.txt line 1/);
  });

  it('counts as missing only the packages whose file is not there', async () => {
    const present = join(scratch, 'present');
    writeFileSync(present, '');
    const missing = await missingPackages([
      { name: 'here', file: present },
      { name: 'gone', file: join(scratch, 'absent') },
    ]);
    expect(missing).toEqual([{ name: 'gone', file: join(scratch, 'absent') }]);
    expect(await missingPackages([{ name: 'here', file: present }])).toEqual([]);
  });

  it('is installed by .ci/run through the same step, with no package list of its own', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    expect(ci).toContain('npx tsx scripts/install-test-packages.ts');
    expect(ci).not.toMatch(/apt-get/);
  });
});
