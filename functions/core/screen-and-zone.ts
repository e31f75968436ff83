/**
 * The time zone and screen size a session asks for, as Selenium Grid 4's dynamic nodes take them:
 * `se:timeZone` (an IANA zone such as "Europe/Berlin", what the browser's clock and `Intl` report) and
 * `se:screenResolution` ("1920x1080", the browser window's size). Read before anything starts: a value no
 * browser could take is `invalid argument`. Pools honour them where they can (local pools: the browser's `TZ`
 * and its window size).
 */
import type { Capabilities } from './capabilities';
import { invalidArgument } from './errors';

export const TIME_ZONE = 'se:timeZone';
export const SCREEN_RESOLUTION = 'se:screenResolution';

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
  const zone = capabilities[TIME_ZONE];
  if (zone === undefined) return undefined;
  if (typeof zone !== 'string' || zone === '' || zone.length > 64 || !/^[A-Za-z0-9/_+-]+$/.test(zone))
    throw invalidArgument(`${TIME_ZONE} must be a time zone name such as "Europe/Berlin"`);
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw invalidArgument(`${TIME_ZONE} "${zone}" is not a time zone this grid knows`);
  }
  return zone;
}

/** The asked screen size; undefined when none is asked. */
export function screenResolution(capabilities: Capabilities): ScreenSize | undefined {
  const asked = capabilities[SCREEN_RESOLUTION];
  if (asked === undefined) return undefined;
  const size = typeof asked === 'string' ? RESOLUTION.exec(asked) : null;
  const width = Number(size?.[1]);
  const height = Number(size?.[2]);
  if (!size || [width, height].some((side) => side < MIN_SIDE || side > MAX_SIDE))
    throw invalidArgument(
      `${SCREEN_RESOLUTION} must be WIDTHxHEIGHT such as "1920x1080", each side ${MIN_SIDE} to ${MAX_SIDE}`,
    );
  return { width, height };
}
