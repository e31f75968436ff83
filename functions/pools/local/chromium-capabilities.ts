/** The capabilities a local pool sends to chromedriver: the pool's Chromium and safe defaults, the client's choices kept. */
import { type Capabilities, isObject } from '../../core/capabilities';
import type { PoolConfig } from '../../core/config';
import { screenResolution, screenSwitches } from '../../core/screen-and-zone';
import { droppedQuietly, switchName, switchRefusal } from './chromium-switches';
import { FEATURES_NO_SESSION_SEES, withFeatures } from './feature-switches';

type LocalPool = Extract<PoolConfig, { kind: 'local' }>;

export interface ChromiumSettings {
  userDataDir: string;
  /** Chromium refuses to run its sandbox as root. */
  runningAsRoot: boolean;
  /** Where the browser saves downloads without asking: the session's managed downloads directory. */
  downloadDirectory?: string;
  /** In a namespace of its own: the executable that starts Chromium as its own user (browser-user.ts). */
  binary?: string;
  /** In a namespace of its own: the DevTools port, the one only chromedriver and pasta may connect to. */
  devtoolsPort?: number;
}

/** Whether the session asks for Selenium Grid 4's managed downloads. */
export const wantsDownloads = (requested: Capabilities) => requested['se:downloadsEnabled'] === true;

export function chromiumCapabilities(
  pool: LocalPool,
  requested: Capabilities,
  settings: ChromiumSettings,
): Capabilities {
  // The catalog matched name, version and platform already; chromedriver knows only "chrome" and
  // compares version and platform strictly (it refuses "LINUX" and custom version names).
  const { browserName: _name, browserVersion: _version, platformName: _platform, ...rest } = requested;
  const options = isObject(rest['goog:chromeOptions']) ? { ...rest['goog:chromeOptions'] } : {};
  // Only allowed switches (a new session with another was refused before any launch); the dropped ones,
  // such as --no-sandbox and --remote-allow-origins, are the grid's to decide.
  const args = Array.isArray(options.args)
    ? options.args.filter(
        (a): a is string =>
          typeof a === 'string' &&
          !droppedQuietly(a) &&
          switchRefusal(a) === undefined &&
          !(settings.devtoolsPort && switchName(a) === 'remote-debugging-port'),
      )
    : [];
  const present = new Set(args.map(switchName));
  const add = (arg: string) => {
    if (!present.has(switchName(arg))) {
      args.push(arg);
      present.add(switchName(arg));
    }
  };
  // Selenium Grid 4's se:screenResolution, unless the client's own --window-size says otherwise.
  const screen = screenResolution(requested);
  if (screen && !present.has('window-size')) for (const arg of screenSwitches(screen)) add(arg);
  if (pool.headless && !present.has('headless')) add('--headless=new');
  if (settings.runningAsRoot) add('--no-sandbox');
  for (const arg of pool.args) add(arg);
  for (const arg of [
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
  ]) {
    add(arg);
  }
  add(`--user-data-dir=${settings.userDataDir}`);
  // The port pasta forwards to is the only one gridgate reaches (a client's port 0, Playwright's, gave way above).
  if (settings.devtoolsPort) add(`--remote-debugging-port=${settings.devtoolsPort}`);
  options.args = withFeatures(args, 'disable-features', FEATURES_NO_SESSION_SEES);
  options.binary = settings.binary ?? options.binary ?? pool.chromium;
  if (settings.downloadDirectory) {
    // As Selenium Grid 4's node sets them; managed downloads need this directory, whatever the client's prefs say.
    options.prefs = {
      ...(isObject(options.prefs) ? options.prefs : {}),
      'download.default_directory': settings.downloadDirectory,
      'download.prompt_for_download': false,
      'savefile.default_directory': settings.downloadDirectory,
    };
  }
  return { ...rest, browserName: 'chrome', 'goog:chromeOptions': options };
}
