/**
 * The time zone and screen size a session asks for, as Selenium Grid 4's dynamic nodes take them:
 * `se:timeZone` (an IANA zone such as "Europe/Berlin", what the browser's clock and `Intl` report) and
 * `se:screenResolution` ("1920x1080", the browser window's size), or as Selenoid takes them (`selenoid:options`
 * {timeZone, screenResolution}, so its users change nothing). Read before anything starts: a value no
 * browser could take is `invalid argument`. Pools honour them where they can: a local browser gets `TZ` and its
 * window size; a container, ecs task or eks pod the environment below, and a Chromium in it the window size.
 */
import { type Capabilities, isObject } from './capabilities';
import { invalidArgument } from './errors';
import { SELENOID_OPTIONS } from './recording-wish';

export interface ScreenSize {
  width: number;
  height: number;
}

// docker-selenium's spelling may carry a colour depth ("1920x1080x24"): a browser window has none to set.
const RESOLUTION = /^(\d{2,5})x(\d{2,5})(?:x\d{1,2})?$/;
// A window smaller than this cannot show a page; larger than 8K is no screen anyone tests on.
const MIN_SIDE = 100;
const MAX_SIDE = 7680;

/** The asked time zone, checked against the zones this machine's ICU knows; undefined when none is asked. */
export function sessionTimeZone(capabilities: Capabilities): string | undefined {
  const zone = asked(capabilities, 'timeZone');
  if (!zone) return undefined;
  const { value, name } = zone;
  if (typeof value !== 'string' || value === '' || value.length > 64 || !/^[A-Za-z0-9/_+-]+$/.test(value))
    throw invalidArgument(`${name} must be a time zone name such as "Europe/Berlin"`);
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
  } catch {
    throw invalidArgument(`${name} "${value}" is not a time zone this grid knows`);
  }
  return value;
}

/** The asked screen size; undefined when none is asked. */
export function screenResolution(capabilities: Capabilities): ScreenSize | undefined {
  const resolution = asked(capabilities, 'screenResolution');
  if (!resolution) return undefined;
  const { value, name } = resolution;
  const size = typeof value === 'string' ? RESOLUTION.exec(value) : null;
  const width = Number(size?.[1]);
  const height = Number(size?.[2]);
  if (!size || [width, height].some((side) => side < MIN_SIDE || side > MAX_SIDE))
    throw invalidArgument(
      `${name} must be WIDTHxHEIGHT such as "1920x1080", each side ${MIN_SIDE} to ${MAX_SIDE}`,
    );
  return { width, height };
}

/** What the session asks under `se:<key>`, else under Selenoid's `selenoid:options.<key>`, and where. */
function asked(
  capabilities: Capabilities,
  key: 'timeZone' | 'screenResolution',
): { value: unknown; name: string } | undefined {
  const grid = `se:${key}`;
  if (capabilities[grid] !== undefined) return { value: capabilities[grid], name: grid };
  const selenoid = capabilities[SELENOID_OPTIONS];
  if (isObject(selenoid) && selenoid[key] !== undefined)
    return { value: selenoid[key], name: `${SELENOID_OPTIONS}.${key}` };
  return undefined;
}

/**
 * The environment a browser's container starts with for the session's zone and screen: `TZ`, which Chromium's
 * clock and `Intl` read, and docker-selenium's `SE_SCREEN_WIDTH`/`SE_SCREEN_HEIGHT`, its X display's size (as
 * Grid 4's dynamic nodes set them); an image without a display ignores those. Empty when the session asks
 * neither. Only a browser started for the session has them: such a session takes no warm one.
 */
export function screenAndZoneEnvironment(capabilities: Capabilities): Record<string, string> {
  const zone = sessionTimeZone(capabilities);
  const screen = screenResolution(capabilities);
  return {
    ...(zone ? { TZ: zone } : {}),
    ...(screen ? { SE_SCREEN_WIDTH: String(screen.width), SE_SCREEN_HEIGHT: String(screen.height) } : {}),
  };
}

/**
 * Chromium's switches for a screen size: its window's, and the screen a headless Chromium reports (a headed
 * one reports its display's, and ignores `--screen-info`; a headless one's is 800x600 without it).
 */
export function screenSwitches(screen: ScreenSize): string[] {
  return [
    `--window-size=${screen.width},${screen.height}`,
    `--screen-info={${screen.width}x${screen.height}}`,
  ];
}

// Where each Chromium-based browser takes its switches; other browsers get the screen from the environment.
const CHROMIUM_OPTIONS: Record<string, string> = {
  chrome: 'goog:chromeOptions',
  chromium: 'goog:chromeOptions',
  MicrosoftEdge: 'ms:edgeOptions',
  msedge: 'ms:edgeOptions',
};

/**
 * The new-session capabilities for a browser in a container, ecs task or eks pod: a Chromium's window (and
 * headless screen) at the asked size, unless the client's own `--window-size` says otherwise.
 */
export function withScreenWindow(capabilities: Capabilities): Capabilities {
  const screen = screenResolution(capabilities);
  const key = CHROMIUM_OPTIONS[String(capabilities.browserName)];
  if (!screen || !key) return capabilities;
  const options = isObject(capabilities[key]) ? capabilities[key] : {};
  const args = Array.isArray(options.args) ? options.args : [];
  if (args.some((arg) => typeof arg === 'string' && arg.split('=', 1)[0] === '--window-size'))
    return capabilities;
  return { ...capabilities, [key]: { ...options, args: [...args, ...screenSwitches(screen)] } };
}
