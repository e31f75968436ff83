/** Which new-session requests may take a browser launched ahead of time, and what chromedriver then gets. */
import { describe, expect, it } from 'vitest';
import type { Capabilities } from '../../../functions/core/capabilities';
import {
  attachCapabilities,
  defaultArgs,
  launchNeeds,
} from '../../../functions/pools/local/attach-capabilities';
import { localPool } from '../../support/one-pool-config';

const chromeOptions = (options: Record<string, unknown>): Capabilities => ({
  browserName: 'chrome',
  'goog:chromeOptions': options,
});

describe('launchNeeds: requests a warm browser serves exactly as a cold one', () => {
  it('sends a session with managed downloads to a cold browser: its download directory is set at launch', () => {
    const need = launchNeeds(localPool(), { browserName: 'chrome', 'se:downloadsEnabled': true }, false);
    expect(need).toMatch(/se:downloadsEnabled/);
    expect(
      launchNeeds(localPool(), { browserName: 'chrome', 'se:downloadsEnabled': false }, false),
    ).toBeUndefined();
  });

  const attachable: [string, Capabilities][] = [
    ['nothing but the browser', { browserName: 'chrome' }],
    [
      'an alias, a version and a platform (matched by the catalog already)',
      { browserName: 'chromium', browserVersion: '1', platformName: 'linux' },
    ],
    ['empty chromeOptions (selenium-webdriver)', chromeOptions({})],
    [
      'Python’s and Java’s default ChromeOptions (empty extensions and args)',
      {
        browserName: 'chrome',
        pageLoadStrategy: 'normal',
        'goog:chromeOptions': { extensions: [], args: [] },
      },
    ],
    [
      'empty prefs, localState and excludeSwitches',
      chromeOptions({ prefs: {}, localState: {}, excludeSwitches: [] }),
    ],
    ['w3c: true', chromeOptions({ w3c: true })],
    [
      'args that are the defaults already',
      chromeOptions({ args: ['--headless=new', '--disable-gpu', '--no-sandbox'] }),
    ],
    ['the pool’s own binary', chromeOptions({ binary: '/usr/bin/chromium' })],
    [
      'timeouts, pageLoadStrategy, unhandledPromptBehavior',
      { timeouts: { implicit: 5 }, pageLoadStrategy: 'eager', unhandledPromptBehavior: 'ignore' },
    ],
    ['acceptInsecureCerts (applied over DevTools)', { acceptInsecureCerts: true }],
    ['webSocketUrl (BiDi, WebdriverIO 9)', { webSocketUrl: true, 'wdio:enforceWebDriverClassic': false }],
    ['strictFileInteractability', { strictFileInteractability: true }],
    ['browser logs', { 'goog:loggingPrefs': { browser: 'ALL' } }],
    ['other vendors’ capabilities', { 'se:name': 'login test', 'sauce:options': { build: '1' } }],
  ];
  it.each(attachable)('attaches: %s', (_what, requested) => {
    expect(launchNeeds(localPool(), requested, true)).toBeUndefined();
  });

  const launched: [string, Capabilities, RegExp][] = [
    ['an extra argument', chromeOptions({ args: ['--window-size=1200,800'] }), /--window-size=1200,800/],
    ['old headless instead of the pool’s', chromeOptions({ args: ['--headless'] }), /--headless/],
    ['another window size', chromeOptions({ args: ['--window-size=800,600'] }), /--window-size/],
    ['another binary', chromeOptions({ binary: '/opt/chrome/chrome' }), /binary/],
    ['extensions', chromeOptions({ extensions: ['Q3Iy'] }), /extensions/],
    ['prefs', chromeOptions({ prefs: { 'download.default_directory': '/tmp' } }), /prefs/],
    ['localState', chromeOptions({ localState: { a: 1 } }), /localState/],
    ['excludeSwitches', chromeOptions({ excludeSwitches: ['enable-automation'] }), /excludeSwitches/],
    ['detach', chromeOptions({ detach: true }), /detach/],
    ['minidumpPath', chromeOptions({ minidumpPath: '/tmp/dumps' }), /minidumpPath/],
    ['mobileEmulation', chromeOptions({ mobileEmulation: { deviceName: 'Pixel 7' } }), /mobileEmulation/],
    [
      'an empty mobileEmulation (not one of the options known to ask nothing when empty)',
      chromeOptions({ mobileEmulation: {} }),
      /mobileEmulation/,
    ],
    ['windowTypes', chromeOptions({ windowTypes: ['webview'] }), /windowTypes/],
    ['perfLoggingPrefs', chromeOptions({ perfLoggingPrefs: { enableNetwork: true } }), /perfLoggingPrefs/],
    ['androidPackage', chromeOptions({ androidPackage: 'com.android.chrome' }), /androidPackage/],
    [
      'the client’s own debuggerAddress',
      chromeOptions({ debuggerAddress: '127.0.0.1:9222' }),
      /debuggerAddress/,
    ],
    ['an option chromedriver may add later', chromeOptions({ somethingNew: 1 }), /somethingNew/],
    ['w3c: false', chromeOptions({ w3c: false }), /w3c/],
    ['a proxy (a launch switch)', { proxy: { proxyType: 'manual', httpProxy: '127.0.0.1:3128' } }, /proxy/],
    ['an unknown goog: capability', { 'goog:somethingNew': true }, /goog:somethingNew/],
    ['setWindowRect (not a request capability)', { setWindowRect: true }, /setWindowRect/],
  ];
  it.each(launched)('launches: %s', (_what, requested, reason) => {
    expect(launchNeeds(localPool(), requested, true)).toMatch(reason);
  });

  it('follows the pool: its extra args are defaults, headless off is a default too', () => {
    const withArgs = localPool({ args: ['--lang=de'] });
    expect(launchNeeds(withArgs, chromeOptions({ args: ['--lang=de'] }), true)).toBeUndefined();
    expect(launchNeeds(withArgs, chromeOptions({ args: ['--lang=fr'] }), true)).toMatch(/--lang=fr/);
    const headful = localPool({ headless: false });
    expect(launchNeeds(headful, { browserName: 'chrome' }, true)).toBeUndefined();
    expect(launchNeeds(headful, chromeOptions({ args: ['--headless=new'] }), true)).toMatch(/--headless=new/);
  });

  it('leaves the sandbox to the grid: a client’s --no-sandbox is dropped, as root or not', () => {
    const sandboxOff = chromeOptions({ args: ['--no-sandbox', '--remote-allow-origins=*'] });
    expect(launchNeeds(localPool(), sandboxOff, true)).toBeUndefined();
    expect(launchNeeds(localPool(), sandboxOff, false)).toBeUndefined();
  });
});

describe('defaultArgs', () => {
  it('are what a cold browser of the pool gets, with the given profile', () => {
    expect(defaultArgs(localPool(), true, '/tmp/p')).toEqual([
      '--headless=new',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--user-data-dir=/tmp/p',
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
    ]);
  });
});

describe('attachCapabilities', () => {
  it('keeps the client’s session options and points chromedriver at the running browser', () => {
    const requested = {
      browserName: 'chromium',
      browserVersion: '1',
      platformName: 'linux',
      timeouts: { script: 1000 },
      webSocketUrl: true,
      'goog:chromeOptions': { args: ['--headless=new'], binary: '/usr/bin/chromium', w3c: true },
    };
    expect(attachCapabilities(requested, '127.0.0.1:40001')).toEqual({
      browserName: 'chrome',
      timeouts: { script: 1000 },
      webSocketUrl: true,
      'goog:chromeOptions': { w3c: true, debuggerAddress: '127.0.0.1:40001' },
    });
  });
});
