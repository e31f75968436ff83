/**
 * Which Chromium switches a client may give a local pool's browser (DESIGN invariant 7): an allowlist, each
 * switch with the values it may take. A local browser runs on gridgate's own machine as gridgate's user, so
 * a switch that names a program, a file or a folder (`--log-file=~/.local/lib/python3/site-packages/x.pth`
 * and a page's `console.error("\nimport os; …")`) would reach beyond the session. The list holds what real
 * suites send: Selenium's and WebdriverIO's usual switches, and everything Playwright sends when it
 * launches through a Selenium grid (its chromiumSwitches, headless set and `--remote-debugging-port=0`).
 * The pool's own `args` (the operator's) are not judged here.
 */

/** What a switch's value may be: none at all, anything, a number, two whole numbers, one of a few words. */
type ValueRule =
  | { kind: 'none' }
  | { kind: 'any' }
  | { kind: 'number' }
  | { kind: 'pair'; signed: boolean }
  | { kind: 'one-of'; values: readonly string[] }
  | { kind: 'v8-flags' };

const NONE: ValueRule = { kind: 'none' };
const ANY: ValueRule = { kind: 'any' };
const NUMBER: ValueRule = { kind: 'number' };
const SIZE: ValueRule = { kind: 'pair', signed: false };
const POSITION: ValueRule = { kind: 'pair', signed: true };
/** '' stands for the switch given without a value. */
const oneOf = (...values: string[]): ValueRule => ({ kind: 'one-of', values });

/** Switches without a value that only turn something on or off inside the browser. */
const FLAGS = [
  'allow-file-access-from-files',
  'allow-insecure-localhost',
  'allow-pre-commit-input',
  'allow-running-insecure-content',
  'auto-open-devtools-for-tabs',
  'deny-permission-prompts',
  'disable-3d-apis',
  'disable-back-forward-cache',
  'disable-background-networking',
  'disable-background-timer-throttling',
  'disable-backgrounding-occluded-windows',
  'disable-breakpad',
  'disable-client-side-phishing-detection',
  'disable-component-extensions-with-background-pages',
  'disable-component-update',
  'disable-default-apps',
  'disable-dev-shm-usage',
  'disable-domain-reliability',
  'disable-edgeupdater',
  'disable-extensions',
  'disable-field-trial-config',
  'disable-gpu',
  'disable-gpu-compositing',
  'disable-hang-monitor',
  'disable-infobars',
  'disable-ipc-flooding-protection',
  'disable-lcd-text',
  'disable-notifications',
  'disable-pings',
  'disable-popup-blocking',
  'disable-print-preview',
  'disable-prompt-on-repost',
  'disable-renderer-backgrounding',
  'disable-search-engine-choice-screen',
  'disable-session-crashed-bubble',
  'disable-site-isolation-trials',
  'disable-smooth-scrolling',
  'disable-software-rasterizer',
  'disable-stack-profiler',
  'disable-sync',
  'disable-translate',
  'disable-updater-scheduler',
  'disable-web-security',
  'disable-webgl',
  'dns-prefetch-disable',
  'do-not-de-elevate',
  'edge-skip-compat-layer-relaunch',
  'enable-automation',
  'enable-gpu-rasterization',
  'enable-precise-memory-info',
  'enable-unsafe-swiftshader',
  'enable-unsafe-webgpu',
  'force-dark-mode',
  'hide-crash-restore-bubble',
  'hide-scrollbars',
  'ignore-certificate-errors',
  'ignore-gpu-blocklist',
  'incognito',
  'kiosk',
  'kiosk-printing',
  'metrics-recording-only',
  'mute-audio',
  'new-window',
  'no-default-browser-check',
  'no-first-run',
  'no-pings',
  'no-proxy-server',
  'no-service-autorun',
  'noerrdialogs',
  'proxy-auto-detect',
  'safebrowsing-disable-auto-update',
  'safebrowsing-disable-download-protection',
  'site-per-process',
  'start-fullscreen',
  'start-maximized',
  'unsafely-disable-devtools-self-xss-warnings',
  'use-fake-device-for-media-stream',
  'use-fake-ui-for-media-stream',
  'use-mock-keychain',
] as const;

/** Switches whose value stays inside the browser: words, lists of features, hosts, a user agent. */
const FREE_VALUES = [
  'accept-lang',
  'blink-settings',
  'disable-blink-features',
  'disable-features',
  'enable-blink-features',
  'enable-features',
  'force-webrtc-ip-handling-policy',
  'host-resolver-rules',
  'host-rules',
  'ignore-certificate-errors-spki-list',
  'lang',
  'origin-to-force-quic-on',
  'proxy-bypass-list',
  'proxy-pac-url',
  'proxy-server',
  'test-type',
  'unsafely-treat-insecure-origin-as-secure',
  'user-agent',
  'vmodule',
] as const;

const ALLOWED: ReadonlyMap<string, ValueRule> = new Map<string, ValueRule>([
  ...FLAGS.map((name) => [name, NONE] as const),
  ...FREE_VALUES.map((name) => [name, ANY] as const),
  ['headless', oneOf('', 'new', 'old')],
  ['window-size', SIZE],
  ['window-position', POSITION],
  ['force-device-scale-factor', NUMBER],
  ['disk-cache-size', NUMBER],
  ['media-cache-size', NUMBER],
  ['log-level', NUMBER],
  ['v', NUMBER],
  // Without a value (chromedriver's own choice) Chromium logs into the session's profile; `stderr` goes to
  // chromedriver. Never a file of the client's naming: that is --log-file, refused below.
  ['enable-logging', oneOf('', 'stderr')],
  [
    'autoplay-policy',
    oneOf('no-user-gesture-required', 'user-gesture-required', 'document-user-activation-required'),
  ],
  ['password-store', oneOf('basic')],
  [
    'force-color-profile',
    oneOf('srgb', 'display-p3-d65', 'generic-rgb', 'color-spin-gamma24', 'scrgb-linear', 'hdr10'),
  ],
  ['font-render-hinting', oneOf('none', 'slight', 'medium', 'full')],
  ['ozone-platform', oneOf('headless', 'x11', 'wayland')],
  ['use-gl', oneOf('angle', 'egl', 'swiftshader', 'disabled')],
  ['use-angle', oneOf('default', 'gl', 'gles', 'swiftshader', 'vulkan')],
  // Port 0 is what chromedriver picks anyway (Playwright sends it through a grid); a fixed port would let
  // one session take a port another session's or the grid's DevTools needs.
  ['remote-debugging-port', oneOf('0')],
  ['js-flags', { kind: 'v8-flags' }],
]);

/** V8 flags a page's JavaScript may run with: none of them writes a file (V8's --logfile, --prof do). */
const V8_FLAGS = new Set([
  'expose-gc',
  'max-old-space-size',
  'max-semi-space-size',
  'stack-size',
  'random-seed',
]);

/**
 * Switches a client may send but whose say is the grid's, dropped without a word. The sandbox is decided
 * by how gridgate runs (it adds --no-sandbox itself as root, where Chromium cannot have one; Playwright
 * sends it by default). --remote-allow-origins would let a page open the browser's DevTools socket:
 * gridgate talks CDP without an Origin, so no client needs it (Selenium Java 4.8 sent it by default).
 */
const DROPPED = new Set(['no-sandbox', 'disable-setuid-sandbox', 'remote-allow-origins']);

/** Why a switch that is not allowed would reach beyond the session, for the ones suites are known to try. */
const REASONS: ReadonlyMap<string, string> = new Map([
  [
    'log-file',
    'it appends Chromium’s log, which pages can write to (console.error), to a file of the client’s naming',
  ],
  ['user-data-dir', 'every session gets a fresh profile of its own, which gridgate deletes afterwards'],
  ['profile-directory', 'every session gets a fresh profile of its own, which gridgate deletes afterwards'],
  ['disk-cache-dir', 'it writes the cache to a folder of the client’s naming on the grid’s machine'],
  ['crash-dumps-dir', 'it writes crash dumps to a folder of the client’s naming on the grid’s machine'],
  ['log-net-log', 'it writes the network log to a file of the client’s naming on the grid’s machine'],
  ['ssl-key-log-file', 'it appends TLS keys to a file of the client’s naming on the grid’s machine'],
  [
    'load-extension',
    'it loads an extension from a folder on the grid’s machine; send it in goog:chromeOptions.extensions',
  ],
  ['disable-extensions-except', 'it names extension folders on the grid’s machine'],
  ['use-file-for-fake-video-capture', 'it reads a file on the grid’s machine'],
  ['use-file-for-fake-audio-capture', 'it reads a file on the grid’s machine'],
  [
    'remote-debugging-address',
    'gridgate proxies the browser’s DevTools (se:cdp); the port stays on loopback',
  ],
  ['remote-debugging-pipe', 'chromedriver talks to the browser itself'],
  ['browser-subprocess-path', 'it runs a program of the client’s naming on the grid’s machine'],
  ['single-process', 'it would run pages inside the browser process'],
  ['no-zygote', 'it would start every renderer without the zygote the sandbox relies on'],
]);
// Program launchers (content_switches.cc: --renderer-cmd-prefix, --gpu-launcher, …) and their future kin.
const PROGRAM_SHAPES = [/-cmd-prefix$/, /-launcher$/, /-subprocess-path$/];

/** "--Window-Size=800,600" → { name: "window-size", value: "800,600" }; chromedriver adds "--" to a bare one. */
export function parseSwitch(arg: string): { name: string; value: string | undefined } {
  const equals = arg.indexOf('=');
  const name = (equals < 0 ? arg : arg.slice(0, equals)).replace(/^-+/, '').toLowerCase();
  return { name, value: equals < 0 ? undefined : arg.slice(equals + 1) };
}

/** The switch's name, for comparing: "--Window-Size=800,600" and "-window-size" → "window-size". */
export const switchName = (arg: string): string => parseSwitch(arg).name;

/** Whether a client's switch is left out without a refusal: the grid decides it (see DROPPED). */
export function droppedQuietly(arg: string): boolean {
  return DROPPED.has(parseSwitch(arg).name);
}

/**
 * Why a client's Chromium switch may not reach a local pool's browser, or undefined when it may. Every
 * spelling Chromium and chromedriver accept (`-x`, `--x`, `x`) is judged by its name; names are matched
 * without regard to case, so `--Log-File` is refused too (Chromium on Linux would ignore it anyway).
 */
export function switchRefusal(arg: string): string | undefined {
  const { name, value } = parseSwitch(arg);
  if (DROPPED.has(name)) return undefined;
  const rule = ALLOWED.get(name);
  const why = rule ? valueProblem(rule, value) : notAllowedReason(name);
  if (why === undefined) return undefined;
  const shown = /^[a-z0-9][a-z0-9._-]*$/.test(name) ? `--${name}` : JSON.stringify(arg);
  return `Chromium switch ${shown} is not allowed on local pools: ${why}; allowed: see docs/sessions.md`;
}

function notAllowedReason(name: string): string {
  const known = REASONS.get(name);
  if (known) return known;
  if (PROGRAM_SHAPES.some((shape) => shape.test(name)))
    return 'it runs a program of the client’s naming on the grid’s machine';
  return 'it is not among the switches local pools allow, which reach nothing outside the session';
}

function valueProblem(rule: ValueRule, value: string | undefined): string | undefined {
  switch (rule.kind) {
    case 'none':
      return value === undefined ? undefined : 'it takes no value';
    case 'any':
      return undefined;
    case 'number':
      return value !== undefined && /^-?\d+(\.\d+)?$/.test(value) ? undefined : 'its value must be a number';
    case 'pair': {
      const number = rule.signed ? '-?\\d+' : '\\d+';
      const ok = value !== undefined && new RegExp(`^${number},${number}$`).test(value);
      return ok ? undefined : `its value must be two whole numbers, as ${rule.signed ? '0,0' : '1280,800'}`;
    }
    case 'one-of':
      return rule.values.includes(value ?? '')
        ? undefined
        : `its value must be one of: ${shownValues(rule.values)}`;
    case 'v8-flags':
      return v8FlagsProblem(value ?? '');
  }
}

function shownValues(values: readonly string[]): string {
  return values.map((value) => (value === '' ? '(none)' : value)).join(', ');
}

function v8FlagsProblem(value: string): string | undefined {
  const flags = value.split(/\s+/).filter(Boolean);
  const other = flags.find((flag) => !V8_FLAGS.has(parseSwitch(flag).name.replaceAll('_', '-')));
  if (other === undefined) return undefined;
  const allowed = [...V8_FLAGS].map((flag) => `--${flag}`).join(', ');
  return `V8 flag ${other} is not among ${allowed} (others write files, as --logfile does)`;
}

/** The allowed switches and their values, as docs/sessions.md lists them (a test keeps the two equal). */
export function allowedSwitches(): { name: string; value: string }[] {
  return [...ALLOWED].map(([name, rule]) => ({ name: `--${name}`, value: describeRule(rule) }));
}

function describeRule(rule: ValueRule): string {
  switch (rule.kind) {
    case 'none':
      return 'no value';
    case 'any':
      return 'any value';
    case 'number':
      return 'a number';
    case 'pair':
      return rule.signed ? 'x,y' : 'width,height';
    case 'one-of':
      return shownValues(rule.values);
    case 'v8-flags':
      return [...V8_FLAGS].map((flag) => `--${flag}`).join(' ');
  }
}
