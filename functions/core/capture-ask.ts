/**
 * Whether a new session asked the grid to capture its browser's console (a text log) and network traffic (a
 * HAR file), in every spelling clients moving off a cloud already send: gridgate's own `gridgate:options`
 * {console, network}; BrowserStack's `bstack:options` {consoleLogs, networkLogs} and the older top-level
 * `browserstack.console` / `browserstack.consoleLogs` / `browserstack.networkLogs`; LambdaTest's `LT:Options`
 * (and top-level) {console, network}. The first spelling given wins, in that order; a value the cloud would
 * not take is `invalid argument` before any browser starts.
 */
import { type Capabilities, isObject } from './capabilities';
import { invalidArgument } from './errors';
import { GRIDGATE_OPTIONS } from './session-limits';

/** What the client said: undefined where it said nothing, so the pool's and the config's defaults apply. */
export interface CaptureAsk {
  console?: boolean;
  network?: boolean;
}

const BSTACK_OPTIONS = 'bstack:options';
const LT_OPTIONS = 'LT:Options';

// BrowserStack's consoleLogs levels ("disable" turns it off; its default, "errors", is a level); LambdaTest's
// console takes true or a level. gridgate keeps every level of a captured console: a level only says "on".
const CONSOLE_ON = new Set(['true', 'errors', 'warnings', 'info', 'verbose', 'error', 'warn']);
const CONSOLE_OFF = new Set(['false', 'disable']);
const NETWORK_ON = new Set(['true']);
const NETWORK_OFF = new Set(['false']);

interface Spelling {
  options: Record<string, unknown>;
  key: string;
  where: string;
}

/** Reads the capabilities (gridgate:options given apart, as new-session takes it out). */
export function captureAsk(capabilities: Capabilities, gridgateOptions: unknown): CaptureAsk {
  const ours = objectOption(gridgateOptions, GRIDGATE_OPTIONS);
  const bstack = objectOption(capabilities[BSTACK_OPTIONS], BSTACK_OPTIONS);
  const lambda = objectOption(capabilities[LT_OPTIONS], LT_OPTIONS);
  const consoleAsked = firstGiven(
    [
      { options: ours, key: 'console', where: GRIDGATE_OPTIONS },
      { options: bstack, key: 'consoleLogs', where: BSTACK_OPTIONS },
      { options: capabilities, key: 'browserstack.console', where: '' },
      { options: capabilities, key: 'browserstack.consoleLogs', where: '' },
      { options: lambda, key: 'console', where: LT_OPTIONS },
      { options: capabilities, key: 'console', where: '' },
    ],
    CONSOLE_ON,
    CONSOLE_OFF,
  );
  const networkAsked = firstGiven(
    [
      { options: ours, key: 'network', where: GRIDGATE_OPTIONS },
      { options: bstack, key: 'networkLogs', where: BSTACK_OPTIONS },
      { options: capabilities, key: 'browserstack.networkLogs', where: '' },
      { options: lambda, key: 'network', where: LT_OPTIONS },
      { options: capabilities, key: 'network', where: '' },
    ],
    NETWORK_ON,
    NETWORK_OFF,
  );
  return {
    ...(consoleAsked !== undefined ? { console: consoleAsked } : {}),
    ...(networkAsked !== undefined ? { network: networkAsked } : {}),
  };
}

function firstGiven(
  spellings: Spelling[],
  on: ReadonlySet<string>,
  off: ReadonlySet<string>,
): boolean | undefined {
  for (const { options, key, where } of spellings) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string' && on.has(value)) return true;
    if (typeof value === 'string' && off.has(value)) return false;
    const name = where ? `${where}.${key}` : key;
    const words = [...on, ...off].map((word) => `"${word}"`).join(', ');
    throw invalidArgument(`${name} must be true, false or one of ${words}, not ${JSON.stringify(value)}`);
  }
  return undefined;
}

function objectOption(value: unknown, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalidArgument(`${where} must be a JSON object`);
  return value;
}
