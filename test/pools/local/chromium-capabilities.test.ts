import { describe, expect, it } from 'vitest';
import { chromiumCapabilities } from '../../../functions/pools/local/chromium-capabilities';
import { localPool } from '../../support/one-pool-config';

const settings = { userDataDir: '/tmp/profile-1', runningAsRoot: true };
const args = (caps: Record<string, unknown>) => (caps['goog:chromeOptions'] as { args: string[] }).args;

describe('chromiumCapabilities', () => {
  it('fills in the binary, headless, sandbox, shm, gpu and a fresh profile', () => {
    const caps = chromiumCapabilities(localPool(), { browserName: 'chromium' }, settings);
    expect(caps.browserName).toBe('chrome');
    expect((caps['goog:chromeOptions'] as { binary: string }).binary).toBe('/usr/bin/chromium');
    expect(args(caps)).toEqual(
      expect.arrayContaining([
        '--headless=new',
        '--no-sandbox',
        '--disable-dev-shm-usage',
        '--disable-gpu',
        '--user-data-dir=/tmp/profile-1',
      ]),
    );
  });

  it('keeps what the client set, the profile aside, and does not add a second value for the same flag', () => {
    const caps = chromiumCapabilities(
      localPool({ args: ['--window-size=800,600'] }),
      {
        'goog:chromeOptions': {
          binary: '/opt/chromium',
          args: ['--headless=old', '--window-size=1920,1080', '--user-data-dir=/mine'],
          prefs: { a: 1 },
        },
      },
      settings,
    );
    const options = caps['goog:chromeOptions'] as { binary: string; args: string[]; prefs: unknown };
    expect(options.binary).toBe('/opt/chromium');
    expect(options.prefs).toEqual({ a: 1 });
    expect(options.args.filter((a) => a.startsWith('--headless'))).toEqual(['--headless=old']);
    expect(options.args.filter((a) => a.startsWith('--window-size'))).toEqual(['--window-size=1920,1080']);
    // A client's profile is refused before any launch; were it not, gridgate's fresh one would still win.
    expect(options.args.filter((a) => a.startsWith('--user-data-dir'))).toEqual([
      '--user-data-dir=/tmp/profile-1',
    ]);
  });

  it('passes on only allowed switches and drops those the grid decides', () => {
    const caps = chromiumCapabilities(
      localPool(),
      {
        'goog:chromeOptions': {
          args: ['--lang=de', '--log-file=/root/x.pth', '--remote-allow-origins=*', '--no-sandbox'],
        },
      },
      { ...settings, runningAsRoot: false },
    );
    expect(args(caps)).toContain('--lang=de');
    expect(args(caps).filter((a) => /log-file|remote-allow-origins|no-sandbox/.test(a))).toEqual([]);
  });

  it('adds no sandbox flag when not running as root, and no headless flag for a headed pool', () => {
    const caps = chromiumCapabilities(
      localPool({ headless: false }),
      {},
      { ...settings, runningAsRoot: false },
    );
    expect(args(caps)).not.toContain('--no-sandbox');
    expect(args(caps).some((a) => a.startsWith('--headless'))).toBe(false);
  });

  it('turns off the features no session sees, joined with the client’s list, unless the client turns one on', () => {
    const features = (requested: Record<string, unknown>) =>
      args(chromiumCapabilities(localPool(), requested, settings)).filter((a) => a.includes('-features='));
    expect(features({})).toEqual(['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup']);
    expect(features({ 'goog:chromeOptions': { args: ['--disable-features=Translate'] } })).toEqual([
      '--disable-features=Translate,WebUIOmniboxPopup,WebUIOmniboxAimPopup',
    ]);
    expect(features({ 'goog:chromeOptions': { args: ['--enable-features=WebUIOmniboxPopup'] } })).toEqual([
      '--enable-features=WebUIOmniboxPopup',
      '--disable-features=WebUIOmniboxAimPopup',
    ]);
  });

  it('drops version and platform, which the catalog matched and chromedriver would compare strictly', () => {
    const caps = chromiumCapabilities(
      localPool(),
      { browserVersion: 'stable', platformName: 'LINUX', 'se:name': 'x' },
      settings,
    );
    expect(caps).not.toHaveProperty('browserVersion');
    expect(caps).not.toHaveProperty('platformName');
    expect(caps['se:name']).toBe('x');
  });

  it('points downloads at the session’s directory, keeping the client’s other prefs, when it has one', () => {
    const requested = { 'se:downloadsEnabled': true, 'goog:chromeOptions': { prefs: { a: 1 } } };
    const caps = chromiumCapabilities(localPool(), requested, { ...settings, downloadDirectory: '/tmp/d' });
    expect((caps['goog:chromeOptions'] as { prefs: unknown }).prefs).toEqual({
      a: 1,
      'download.default_directory': '/tmp/d',
      'download.prompt_for_download': false,
      'savefile.default_directory': '/tmp/d',
    });
    expect(
      (chromiumCapabilities(localPool(), requested, settings)['goog:chromeOptions'] as { prefs: unknown })
        .prefs,
    ).toEqual({ a: 1 });
  });
});
