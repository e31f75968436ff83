import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Capabilities } from '../../../functions/core/capabilities';
import type { PoolConfig } from '../../../functions/core/config';
import { configTraitsOf } from '../../../functions/core/config-traits-by-kind';
import {
  allowedSwitches,
  droppedQuietly,
  switchRefusal,
} from '../../../functions/pools/local/chromium-switches';

const LOCAL = { kind: 'local', name: 'local', chromium: '/usr/bin/chromium' } as PoolConfig;
const ECS = { kind: 'ecs', name: 'fargate' } as PoolConfig;
/** What create-session asks of the pool's kind before anything starts. */
const launchRefusal = (capabilities: Capabilities, pool: PoolConfig) =>
  configTraitsOf(pool).launchRefusal?.(capabilities, pool);
const withOptions = (options: Record<string, unknown>) => ({ 'goog:chromeOptions': options });
const refusalOf = (options: Record<string, unknown>) => launchRefusal(withOptions(options), LOCAL);

/** What real clients send by default or commonly (read from their sources; see docs/sessions.md). */
const CLIENT_SWITCHES = {
  selenium: [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--window-size=1920,1080',
  ],
  // Selenium Java 4.8 added this by default; it is dropped, not refused.
  seleniumJava48: ['--remote-allow-origins=*'],
  // WebdriverIO's headless mode (@wdio/config applyHeadlessFlag).
  webdriverio: ['--headless', '--disable-gpu'],
  // Playwright 1.65 through a Selenium grid (chromiumSwitches, headless, launchWithSeleniumHub).
  playwright: [
    '--disable-field-trial-config',
    '--disable-background-networking',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-back-forward-cache',
    '--disable-breakpad',
    '--disable-component-extensions-with-background-pages',
    '--disable-component-update',
    '--no-default-browser-check',
    '--disable-default-apps',
    '--disable-dev-shm-usage',
    '--disable-edgeupdater',
    '--disable-extensions',
    '--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades',
    '--enable-features=CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies',
    '--allow-pre-commit-input',
    '--disable-hang-monitor',
    '--disable-ipc-flooding-protection',
    '--disable-popup-blocking',
    '--disable-prompt-on-repost',
    '--disable-renderer-backgrounding',
    '--disable-updater-scheduler',
    '--force-color-profile=srgb',
    '--metrics-recording-only',
    '--no-first-run',
    '--password-store=basic',
    '--use-mock-keychain',
    '--no-service-autorun',
    '--disable-search-engine-choice-screen',
    '--unsafely-disable-devtools-self-xss-warnings',
    '--enable-unsafe-swiftshader',
    '--edge-skip-compat-layer-relaunch',
    '--disable-stack-profiler',
    '--disable-infobars',
    '--disable-sync',
    '--do-not-de-elevate',
    '--headless',
    '--hide-scrollbars',
    '--mute-audio',
    '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4',
    '--no-sandbox',
    '--proxy-server=http://127.0.0.1:3128',
    '--proxy-bypass-list=<-loopback>',
    '--remote-debugging-port=0',
  ],
  common: [
    '--lang=de-DE',
    '--user-agent=Mozilla/5.0 (X11; Linux x86_64) custom',
    '--window-position=-10,0',
    '--incognito',
    '--autoplay-policy=no-user-gesture-required',
    '--start-maximized',
    '--ignore-certificate-errors',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    '--js-flags=--expose-gc --max-old-space-size=4096',
    '--force-device-scale-factor=1.5',
    '--enable-logging=stderr',
    '--v=1',
  ],
};

describe('the Chromium switches a local pool allows', () => {
  it('starts what the client families send', () => {
    for (const [client, args] of Object.entries(CLIENT_SWITCHES)) {
      expect(refusalOf({ args, extensions: [] }), client).toBeUndefined();
    }
  });

  it('refuses switches that write to a path, naming the switch and why', () => {
    for (const [arg, why] of [
      [
        '--log-file=/root/.local/lib/python3.11/site-packages/x.pth',
        /Chromium’s log.*file of the client’s naming/,
      ],
      ['--user-data-dir=/root', /fresh profile/],
      ['--disk-cache-dir=/tmp/x', /cache/],
      ['--crash-dumps-dir=/tmp/x', /crash dumps/],
      ['--log-net-log=/tmp/x', /network log/],
      ['--ssl-key-log-file=/tmp/x', /TLS keys/],
      ['--load-extension=/tmp/x', /extension/],
      ['--use-file-for-fake-video-capture=/etc/shadow', /reads a file/],
    ] as const) {
      const refusal = refusalOf({ args: ['--window-size=800,600', arg] });
      const name = arg.split('=', 1)[0];
      expect(refusal, arg).toMatch(new RegExp(`^Chromium switch ${name} is not allowed on local pools: `));
      expect(refusal, arg).toMatch(why);
      expect(refusal, arg).toMatch(/; allowed: see docs\/sessions\.md$/);
    }
  });

  it('refuses every switch that runs a program, however it is spelled', () => {
    for (const arg of [
      '--renderer-cmd-prefix=/bin/sh -c "touch /tmp/x"',
      '--utility-cmd-prefix=xterm',
      '--gpu-launcher=/bin/sh',
      '--browser-subprocess-path=/tmp/evil',
      '--some-future-cmd-prefix=x',
      '-renderer-cmd-prefix=/bin/sh',
      'renderer-cmd-prefix=/bin/sh',
      '--GPU-Launcher=/bin/sh',
    ]) {
      expect(switchRefusal(arg), arg).toMatch(
        /^Chromium switch --[a-z-]+ is not allowed on local pools: it runs a program/,
      );
    }
  });

  it('refuses the log file in every spelling Chromium and chromedriver accept', () => {
    for (const arg of ['--log-file=/x', '-log-file=/x', 'log-file=/x', '--LOG-FILE=/x', '---log-file=/x']) {
      expect(switchRefusal(arg), arg).toMatch(/^Chromium switch --log-file is not allowed/);
    }
  });

  it('refuses a switch it does not know, and wrong values of one it knows', () => {
    expect(switchRefusal('--foo')).toBe(
      'Chromium switch --foo is not allowed on local pools: it is not among the switches local pools allow, which reach nothing outside the session; allowed: see docs/sessions.md',
    );
    expect(switchRefusal('--window-size=big')).toMatch(/two whole numbers/);
    expect(switchRefusal('--window-size=-1,600')).toMatch(/two whole numbers/);
    expect(switchRefusal('--headless=maybe')).toMatch(/one of: \(none\), new, old/);
    expect(switchRefusal('--disable-gpu=1')).toMatch(/takes no value/);
    expect(switchRefusal('--enable-logging=/tmp/chrome.log')).toMatch(/one of: \(none\), stderr/);
    expect(switchRefusal('--remote-debugging-port=9222')).toMatch(/one of: 0/);
    expect(switchRefusal('--js-flags=--logfile=/tmp/x --log-all')).toMatch(/V8 flag --logfile=\/tmp\/x/);
    expect(switchRefusal(' --log-file=/x')).toMatch(/^Chromium switch " --log-file=\/x" is not allowed/);
  });

  it('lists every allowed switch in docs/sessions.md, where refusals send people', () => {
    const docs = readFileSync('docs/sessions.md', 'utf8');
    const section = docs.slice(
      docs.indexOf('### Launch options on local pools'),
      docs.indexOf('Refused, among others'),
    );
    const listed = new Set(section.match(/`--[a-z0-9-]+`/g)?.map((name) => name.slice(1, -1)));
    expect(
      allowedSwitches()
        .map((allowed) => allowed.name)
        .filter((name) => !listed.has(name)),
    ).toEqual([]);
  });

  it('drops the sandbox and DevTools origin switches quietly: the grid decides them', () => {
    for (const arg of [
      '--no-sandbox',
      '--disable-setuid-sandbox',
      '--remote-allow-origins=*',
      'remote-allow-origins=*',
    ]) {
      expect(switchRefusal(arg), arg).toBeUndefined();
      expect(droppedQuietly(arg), arg).toBe(true);
    }
    expect(droppedQuietly('--headless=new')).toBe(false);
  });
});

describe('the goog:chromeOptions a local pool allows', () => {
  it('refuses another binary and a DevTools address to attach to', () => {
    expect(refusalOf({ binary: '/bin/sh' })).toMatch(/^goog:chromeOptions\.binary: another binary/);
    expect(refusalOf({ debuggerAddress: '127.0.0.1:9222' })).toMatch(
      /^goog:chromeOptions\.debuggerAddress: .*another browser/,
    );
  });

  it('refuses what writes to a path or outlives the session', () => {
    expect(refusalOf({ logPath: '/root/x.pth' })).toMatch(
      /^goog:chromeOptions\.logPath: not allowed.*file of the client’s naming/,
    );
    expect(refusalOf({ minidumpPath: '/tmp/dumps' })).toMatch(/^goog:chromeOptions\.minidumpPath: /);
    expect(refusalOf({ detach: true })).toMatch(/^goog:chromeOptions\.detach: .*running after the session/);
    expect(refusalOf({ detach: false })).toBeUndefined();
    expect(refusalOf({ androidPackage: 'com.android.chrome' })).toMatch(/Android device/);
    expect(refusalOf({ androidDeviceSerial: 'x' })).toMatch(/Android device/);
    expect(refusalOf({ surprise: 1 })).toMatch(/^goog:chromeOptions\.surprise: not a chromedriver option/);
  });

  it('refuses preferences naming a folder, dotted or nested', () => {
    for (const prefs of [
      { 'download.default_directory': '/root' },
      { download: { default_directory: '/root' } },
      { savefile: { default_directory: '/root' } },
    ]) {
      expect(refusalOf({ prefs }), JSON.stringify(prefs)).toMatch(
        /preference (download|savefile)\.default_directory names a folder/,
      );
    }
    expect(refusalOf({ localState: { 'x.some_path': '/etc' } })).toMatch(
      /^goog:chromeOptions\.localState: preference x\.some_path/,
    );
    expect(
      refusalOf({
        prefs: { 'profile.password_manager_leak_detection': false, download: { prompt_for_download: false } },
        localState: { 'browser.enabled_labs_experiments': [] },
      }),
    ).toBeUndefined();
  });

  it('lets the client exclude chromedriver’s own defaults only', () => {
    expect(refusalOf({ excludeSwitches: ['enable-automation', '--enable-logging'] })).toBeUndefined();
    expect(refusalOf({ excludeSwitches: ['user-data-dir'] })).toMatch(/"user-data-dir" may not be excluded/);
    expect(refusalOf({ excludeSwitches: ['no-sandbox'] })).toMatch(/may not be excluded/);
  });

  it('starts what stays inside the session', () => {
    expect(
      refusalOf({
        args: ['--headless=new', '--window-size=1280,1024'],
        binary: '/usr/bin/chromium',
        extensions: [],
        w3c: true,
        mobileEmulation: { deviceName: 'Pixel 7' },
        perfLoggingPrefs: { enableNetwork: true },
        windowTypes: ['webview'],
      }),
    ).toBeUndefined();
    expect(launchRefusal({ browserName: 'chrome' }, LOCAL)).toBeUndefined();
  });

  it('leaves browsers that do not run on this machine to their own pools', () => {
    expect(
      launchRefusal(withOptions({ args: ['--log-file=/x'], binary: '/x', logPath: '/y' }), ECS),
    ).toBeUndefined();
  });
});
