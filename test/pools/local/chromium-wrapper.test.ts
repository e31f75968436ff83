/**
 * What Debian's /usr/bin/chromium gives the real binary, worked out by running the wrapper itself: against a
 * fixture /etc/chromium.d put in its place for the probe run only, so what is found comes from the wrapper's
 * own logic over those files (not from today's flag list), and against wrappers of our own where it must not
 * be trusted. Needs Debian's chromium package (the e2e image has it) and `unshare`.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEBIAN_LAYOUT, wrapperStart } from '../../../functions/pools/local/chromium-wrapper';

let folder: string;
let probe: { env: NodeJS.ProcessEnv; folder: string };

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'gridgate-wrapper-test-'));
  const home = join(folder, 'home');
  mkdirSync(home);
  probe = { env: { PATH: '/usr/bin:/bin', HOME: home, TMPDIR: home, TZ: 'Asia/Tokyo' }, folder };
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A /etc/chromium.d of the test's own: the files and what each holds. */
function settings(files: Record<string, string>): string {
  const dir = join(folder, 'chromium.d');
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A wrapper script of the test's own in front of a binary of its own. */
function ownLayout(script: string): { wrapper: string; binary: string } {
  const binary = join(folder, 'real-chromium');
  writeFileSync(binary, '#!/bin/sh\nexit 0\n');
  chmodSync(binary, 0o755);
  const wrapper = join(folder, 'chromium-wrapper');
  writeFileSync(wrapper, `#!/bin/sh\n${script.replaceAll('BINARY', binary)}\n`);
  chmodSync(wrapper, 0o755);
  return { wrapper, binary };
}

describe("Debian's chromium wrapper", () => {
  it('gives the real binary the flags and variables its own logic builds from /etc/chromium.d', async () => {
    const etc = settings({
      README: 'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --from-the-readme"\n',
      'default-flags': [
        'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --lang=eo --window-position=0,0"',
        'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --load-extension=/opt/one"',
        'export GRIDGATE_TEST_KEY="key from a file"',
      ].join('\n'),
      'old.dpkg-old': 'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --from-a-dpkg-leftover"\n',
      zone: 'export TZ=Europe/Paris\n',
    });
    const start = await wrapperStart('/usr/bin/chromium', { ...probe, overlays: [[etc, '/etc/chromium.d']] });

    expect(start).toMatchObject({ binary: DEBIAN_LAYOUT.binary });
    if (typeof start === 'string') return;
    // The files' flags in their order; README and dpkg leftovers skipped, as the wrapper skips them; then
    // what the wrapper adds when the files do not enable remote extensions: the loaded ones whitelisted.
    expect(start.flags).toEqual([
      '--lang=eo',
      '--window-position=0,0',
      '--load-extension=/opt/one',
      '--disable-background-networking',
      '--disable-extensions-except=/opt/one,',
    ]);
    // What the files export and what the wrapper sets, changed values included; what it leaves is not repeated.
    expect(start.env).toMatchObject({
      GRIDGATE_TEST_KEY: 'key from a file',
      TZ: 'Europe/Paris',
      CHROME_WRAPPER: '/usr/bin/chromium',
      CHROME_DESKTOP: 'chromium.desktop',
    });
    expect(start.env).not.toHaveProperty('PATH');
    expect(start.env).not.toHaveProperty('HOME');
  });

  it("follows a change to the machine's /etc/chromium.d: the real one gives what its files say", async () => {
    const start = await wrapperStart('/usr/bin/chromium', probe);
    if (typeof start === 'string') throw new Error(start);
    // The flags the wrapper exports are also in CHROMIUM_FLAGS, word for word.
    expect(start.flags).toEqual(start.env.CHROMIUM_FLAGS?.trim().split(/\s+/));
    for (const name of ['apikeys', 'default-flags']) {
      const text = readFileSync(join('/etc/chromium.d', name), 'utf8');
      for (const [, flag] of text.matchAll(/CHROMIUM_FLAGS="\$CHROMIUM_FLAGS (--[^"\s]+)"/g))
        expect(start.flags).toContain(flag);
      for (const [, variable, value] of text.matchAll(/^export (\w+)="([^"$]*)"$/gm))
        if (variable !== 'CHROMIUM_FLAGS') expect(start.env[variable as string]).toBe(value);
    }
  });

  it('keeps any other binary as configured, without running it', async () => {
    for (const chromium of [DEBIAN_LAYOUT.binary, join(folder, 'no-such-chromium')])
      expect(await wrapperStart(chromium, probe)).toEqual({ binary: chromium, flags: [], env: {} });
    // A distribution whose chromium is the binary itself.
    const layout = { wrapper: '/bin/true', binary: DEBIAN_LAYOUT.binary };
    expect(await wrapperStart('/bin/true', probe, layout)).toEqual({
      binary: '/bin/true',
      flags: [],
      env: {},
    });
  });

  it('says why when the wrapper does not end in the exec it is trusted for', async () => {
    const cases: [string, RegExp][] = [
      ['exit 3', /probe run failed/],
      ['exec /bin/true "$@"', /did not exec/],
      ['exec BINARY "$@" --after-the-caller', /caller's arguments last/],
      ['unset TZ; exec BINARY "$@"', /removes TZ/],
    ];
    for (const [script, why] of cases) {
      const layout = ownLayout(script);
      expect(await wrapperStart(layout.wrapper, probe, layout)).toMatch(why);
    }
  });

  it('takes what a wrapper of the same shape gives, whatever it is', async () => {
    const layout = ownLayout('export ADDED=yes; exec BINARY --first "--with space" "$@"');
    expect(await wrapperStart(layout.wrapper, probe, layout)).toEqual({
      binary: layout.binary,
      flags: ['--first', '--with space'],
      env: { ADDED: 'yes' },
    });
  });
});
