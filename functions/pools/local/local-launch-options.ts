/**
 * What a client may ask of the launch of a Chromium that runs on gridgate's own machine (DESIGN invariant
 * 7): each `goog:chromeOptions` field either stays inside the session or is refused, before anything
 * starts. A local pool's browser and its chromedriver run as gridgate's user, so a file path, another
 * program or a browser left running would reach beyond the session. Browsers in containers (ecs, eks
 * pools) and behind hubs are not this machine's: their options pass through.
 */
import { type Capabilities, isObject } from '../../core/capabilities';
import { parseSwitch, switchRefusal } from './chromium-switches';

/** chromedriver's goog:chromeOptions fields (chromedriver 156) that stay inside the session, checked or not. */
const INSIDE_THE_SESSION = new Set([
  'args', // each switch judged by chromium-switches.ts
  'binary', // the pool's own only
  'excludeSwitches', // chromedriver's own defaults only
  'extensions', // sent as base64 .crx, unpacked into chromedriver's scratch folder
  'prefs', // no path-valued preference
  'localState', // no path-valued preference
  'detach', // false only
  'w3c',
  'mobileEmulation',
  'perfLoggingPrefs',
  'windowTypes',
  'browserStartupTimeout',
  'extensionLoadTimeout',
  'enableExtensionTargets',
]);

/** Why the refused fields reach beyond the session. */
const REFUSED_FIELDS: ReadonlyMap<string, string> = new Map([
  [
    'debuggerAddress',
    'it would attach to another browser on the grid’s machine, another session’s among them',
  ],
  [
    'logPath',
    'chromedriver has Chromium append its log, which pages can write to, to a file of the client’s naming',
  ],
  ['minidumpPath', 'it names a folder on the grid’s machine'],
]);

/**
 * What of a local pool's config the judgement reads: its name and its own Chromium. Named by shape, not as the
 * parsed pool, since the local kind's config module (pools/local/local-pool-config.ts) builds on it.
 */
interface LocalChromium {
  name: string;
  chromium: string;
}

/**
 * The chromedriver defaults a client may leave out (chromedriver's switches on Linux, as
 * pools/local/chromium-process.ts lists them): nothing gridgate adds itself, such as the profile.
 */
const EXCLUDABLE = new Set([
  'allow-pre-commit-input',
  'disable-background-networking',
  'disable-background-timer-throttling',
  'disable-backgrounding-occluded-windows',
  'disable-client-side-phishing-detection',
  'disable-default-apps',
  'disable-hang-monitor',
  'disable-popup-blocking',
  'disable-prompt-on-repost',
  'disable-sync',
  'enable-automation',
  'enable-logging',
  'log-level',
  'no-first-run',
  'no-service-autorun',
  'password-store',
  'test-type',
  'use-mock-keychain',
]);

/** A preference naming a folder or a file: download.default_directory, savefile.default_directory, … */
const PATH_PREFERENCE = /(directory|dir|path)$/i;

/**
 * Why these capabilities may not start a browser in a local pool, or undefined when they may: its Chromium,
 * its binary and its switches are this machine's. Other kinds' browsers are judged by their own pools.
 */
export function localLaunchRefusal(capabilities: Capabilities, pool: LocalChromium): string | undefined {
  const options = capabilities['goog:chromeOptions'];
  if (!isObject(options)) return undefined;
  for (const [field, value] of Object.entries(options)) {
    // A switch's refusal names the switch: "Chromium switch --log-file is not allowed on local pools: …".
    if (field === 'args' && Array.isArray(value)) {
      const refusal = firstOf(value, (arg) => (typeof arg === 'string' ? switchRefusal(arg) : undefined));
      if (refusal) return refusal;
      continue;
    }
    const refusal = fieldRefusal(field, value, pool);
    if (refusal) return `goog:chromeOptions.${field}: ${refusal}`;
  }
  return undefined;
}

function fieldRefusal(field: string, value: unknown, pool: LocalChromium): string | undefined {
  const refused = REFUSED_FIELDS.get(field);
  if (refused) return `not allowed on local pools: ${refused}`;
  if (field.startsWith('android'))
    return 'not allowed on local pools: it would drive an Android device attached to the grid’s machine';
  if (!INSIDE_THE_SESSION.has(field)) return 'not a chromedriver option local pools know';
  switch (field) {
    case 'binary':
      return value === pool.chromium
        ? undefined
        : `another binary would run another program on the grid’s machine; pool ${pool.name} runs its own Chromium only`;
    case 'detach':
      return value === true ? 'detach would leave Chromium running after the session' : undefined;
    case 'excludeSwitches':
      return Array.isArray(value) ? firstOf(value, excludeRefusal) : undefined;
    case 'prefs':
    case 'localState':
      return pathPreference(value);
    default:
      return undefined;
  }
}

function firstOf(values: unknown[], refusal: (value: unknown) => string | undefined): string | undefined {
  for (const value of values) {
    const found = refusal(value);
    if (found) return found;
  }
  return undefined;
}

function excludeRefusal(name: unknown): string | undefined {
  if (typeof name === 'string' && EXCLUDABLE.has(parseSwitch(name).name)) return undefined;
  return `${JSON.stringify(name)} may not be excluded: only chromedriver's own default switches may (${[...EXCLUDABLE].join(', ')})`;
}

/** The first preference, nested ({download: {default_directory}}) or dotted, that names a path. */
function pathPreference(prefs: unknown, prefix = ''): string | undefined {
  if (!isObject(prefs)) return undefined;
  for (const [key, value] of Object.entries(prefs)) {
    const name = `${prefix}${key}`;
    if (isObject(value)) {
      const nested = pathPreference(value, `${name}.`);
      if (nested) return nested;
    } else if (PATH_PREFERENCE.test(key)) {
      return `preference ${name} names a folder or file on the grid’s machine; for downloads ask for se:downloadsEnabled, which gives the session a folder of its own`;
    }
  }
  return undefined;
}
