/**
 * Whether a new session can take a browser launched ahead of time. chromedriver attaches to it over
 * `goog:chromeOptions.debuggerAddress` and then ignores every launch-time option, so a request may attach
 * only when everything it asks of the launch is what the warm browser was launched with; anything
 * chromedriver applies after the launch (over DevTools) is fine.
 *
 * Checked against chromedriver 156 with real Chromium: timeouts, pageLoadStrategy,
 * unhandledPromptBehavior, acceptInsecureCerts (Security.setIgnoreCertificateErrors), webSocketUrl (BiDi
 * mapper), goog:loggingPrefs and window size all work attached. Launch-time (so not attachable): extra or
 * different Chromium arguments, another binary, extensions, prefs, localState, excludeSwitches, detach,
 * minidumpPath, mobileEmulation, windowTypes, perfLoggingPrefs, android*, a debuggerAddress of the
 * client's own, and any proxy. Unknown options count as launch-time too: when in doubt, a cold browser.
 */
import { type Capabilities, isObject } from '../../core/capabilities';
import type { PoolConfig } from '../../core/config';
import { chromiumCapabilities, wantsDownloads } from './chromium-capabilities';

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

/** W3C and chromedriver capabilities that chromedriver applies to a browser it attaches to. */
const APPLIED_WHEN_ATTACHED = new Set([
  'browserName',
  'acceptInsecureCerts',
  'pageLoadStrategy',
  'timeouts',
  'unhandledPromptBehavior',
  'strictFileInteractability',
  'webSocketUrl',
  'goog:chromeOptions',
  'goog:loggingPrefs',
]);
/** goog:chromeOptions keys that launch nothing: args and binary are compared with the warm browser's. */
const ATTACHABLE_OPTIONS = new Set(['args', 'binary', 'w3c']);
/**
 * Launch options that ask nothing when empty. Python's and Java's ChromeOptions send `extensions: []`
 * whatever the test sets, so without this their sessions would never get a warm browser.
 */
const NOTHING_WHEN_EMPTY = new Set(['extensions', 'prefs', 'localState', 'excludeSwitches']);
// Stands for the profile directory in the comparison: every browser gets a fresh one, warm or not.
const ANY_PROFILE = '\0profile';

/**
 * Why this request needs a browser launched for it, or undefined when a warm browser of the pool (one
 * launched with the pool's defaults) serves it exactly as a cold one would.
 */
export function launchNeeds(
  pool: LocalPool,
  requested: Capabilities,
  runningAsRoot: boolean,
): string | undefined {
  // The download directory is a launch-time pref: a warm browser has none.
  if (wantsDownloads(requested)) return 'se:downloadsEnabled needs a download directory set at launch';
  const settings = { userDataDir: ANY_PROFILE, runningAsRoot };
  const wanted = chromiumCapabilities(pool, requested, settings);
  for (const key of Object.keys(wanted)) {
    // Other vendors' extension capabilities (se:, wdio:, …) are not chromedriver's: it ignores them.
    const chromedrivers = !key.includes(':') || /^(goog|webauthn|fedcm):/.test(key);
    if (chromedrivers && !APPLIED_WHEN_ATTACHED.has(key)) return `${key} may apply at launch`;
  }
  const options = wanted['goog:chromeOptions'] as Record<string, unknown>;
  for (const [key, value] of Object.entries(options)) {
    if (ATTACHABLE_OPTIONS.has(key) || (NOTHING_WHEN_EMPTY.has(key) && isEmpty(value))) continue;
    return `goog:chromeOptions.${key} may apply at launch`;
  }
  if (options.w3c !== undefined && options.w3c !== true) return 'goog:chromeOptions.w3c is not true';
  if (options.binary !== pool.chromium) return 'goog:chromeOptions.binary is not the pool’s Chromium';
  const args = new Set(options.args as string[]);
  const warmArgs = defaultArgs(pool, runningAsRoot);
  const different = [
    ...[...args].filter((arg) => !warmArgs.includes(arg)),
    ...warmArgs.filter((arg) => !args.has(arg)),
  ];
  if (different.length > 0)
    return `Chromium arguments differ from the pool's defaults: ${different.join(' ')}`;
  return undefined;
}

function isEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
}

/** The arguments a browser of this pool gets when the client adds none (its profile directory aside). */
export function defaultArgs(pool: LocalPool, runningAsRoot: boolean, userDataDir = ANY_PROFILE): string[] {
  const options = chromiumCapabilities(pool, {}, { userDataDir, runningAsRoot })['goog:chromeOptions'];
  return (isObject(options) && Array.isArray(options.args) ? options.args : []) as string[];
}

/**
 * The new-session capabilities that have chromedriver attach to the warm browser at `debuggerAddress`
 * (for a request launchNeeds found attachable): the client's choices kept, the launch options dropped
 * since the browser already runs with them.
 */
export function attachCapabilities(requested: Capabilities, debuggerAddress: string): Capabilities {
  // As for a cold browser: chromedriver knows only "chrome" and compares version and platform strictly.
  const { browserName: _name, browserVersion: _version, platformName: _platform, ...rest } = requested;
  const given = isObject(rest['goog:chromeOptions']) ? rest['goog:chromeOptions'] : {};
  return {
    ...rest,
    browserName: 'chrome',
    'goog:chromeOptions': { ...(given.w3c === true ? { w3c: true } : {}), debuggerAddress },
  };
}
