/**
 * W3C WebDriver §7.2 "Validating capabilities": what each standard capability's value may be, checked
 * before anything is launched, so a request that can never succeed starts no browser. Each check answers
 * why a value is refused, or undefined when it is fine. Extension capabilities (with a ":") are the
 * browser's to check, except the few gridgate itself reads.
 */

type Check = (value: unknown) => string | undefined;

// §7.2 and §14.1 "Timeouts": integers from 0 to 2^53 - 1 (Number.MAX_SAFE_INTEGER).
const PAGE_LOAD_STRATEGIES = ['none', 'eager', 'normal'];
// §7.2 "unhandledPromptBehavior" (the string form; the map of prompt types is newer and passed on as is).
const PROMPT_BEHAVIOURS = ['dismiss', 'accept', 'dismiss and notify', 'accept and notify', 'ignore'];
// §7.1 "Proxy": the proxy types and, per key, the type it allows and what its value must be.
const PROXY_TYPES = ['pac', 'direct', 'autodetect', 'system', 'manual'];
const MANUAL_PROXY_KEYS = ['ftpProxy', 'httpProxy', 'sslProxy', 'socksProxy', 'socksVersion', 'noProxy'];

const STANDARD: Record<string, Check> = {
  browserName: string,
  browserVersion: string,
  platformName: string,
  acceptInsecureCerts: boolean,
  pageLoadStrategy: (v) =>
    PAGE_LOAD_STRATEGIES.includes(v as string) ? undefined : oneOf(PAGE_LOAD_STRATEGIES),
  proxy,
  setWindowRect: boolean,
  timeouts,
  strictFileInteractability: boolean,
  unhandledPromptBehavior: (v) =>
    isPlainObject(v) || PROMPT_BEHAVIOURS.includes(v as string) ? undefined : oneOf(PROMPT_BEHAVIOURS),
  userAgent: string,
  webSocketUrl: boolean,
};

/** Whether the key is a standard capability (W3C §7.2's table), as opposed to an extension one. */
export function isStandardCapability(key: string): boolean {
  return key in STANDARD;
}

/** Why the value of a capability is refused, or undefined; an extension capability gridgate does not read passes. */
export function capabilityValueProblem(key: string, value: unknown): string | undefined {
  const check = STANDARD[key] ?? EXTENSIONS_READ_BY_GRIDGATE[key];
  return check?.(value);
}

// Extension capabilities gridgate reads or changes itself before the browser sees them: a value of the
// wrong type would otherwise be dropped silently instead of refused as chromedriver refuses it.
const EXTENSIONS_READ_BY_GRIDGATE: Record<string, Check> = {
  'goog:chromeOptions': (v) => {
    if (!isPlainObject(v)) return 'must be a JSON object';
    if (v.args !== undefined && !isListOf(v.args, isString)) return 'args must be a list of strings';
    return undefined;
  },
};

/**
 * §7.1 "Proxy": the type, and the value of each key it knows. Keys of another proxy type and keys it does
 * not know (Python selenium's socksUsername) are left to the browser, as chromedriver ignores them: a
 * session it would start is never refused here.
 */
function proxy(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a JSON object';
  const type = value.proxyType;
  if (!PROXY_TYPES.includes(type as string)) return `proxyType ${oneOf(PROXY_TYPES)}`;
  for (const [key, item] of Object.entries(value)) {
    if (key === 'proxyAutoconfigUrl' && !isString(item)) return 'proxyAutoconfigUrl must be a URL';
    const problem = MANUAL_PROXY_KEYS.includes(key) ? manualProxyProblem(key, item) : undefined;
    if (problem) return problem;
  }
  if (type === 'pac' && value.proxyAutoconfigUrl === undefined)
    return 'proxyType "pac" needs proxyAutoconfigUrl';
  if (type === 'manual' && value.socksProxy !== undefined && value.socksVersion === undefined) {
    return 'socksProxy needs socksVersion';
  }
  return undefined;
}

function manualProxyProblem(key: string, value: unknown): string | undefined {
  if (key === 'socksVersion') {
    return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255
      ? undefined
      : 'socksVersion must be an integer from 0 to 255';
  }
  // A list of hosts (W3C); a comma-separated string is what older clients send and browsers take.
  if (key === 'noProxy') {
    return isListOf(value, isString) || isString(value) ? undefined : 'noProxy must be a list of strings';
  }
  return isString(value) ? undefined : `${key} must be a string (host and optional port)`;
}

function timeouts(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a JSON object';
  for (const [key, item] of Object.entries(value)) {
    if (key !== 'script' && key !== 'pageLoad' && key !== 'implicit')
      return `has no key ${JSON.stringify(key)}`;
    // §14.1: only the script timeout may be null ("never").
    if (item === null && key === 'script') continue;
    if (!Number.isSafeInteger(item) || (item as number) < 0) {
      return `${key} must be an integer from 0 to 2^53 - 1${key === 'script' ? ', or null' : ''}`;
    }
  }
  return undefined;
}

function string(value: unknown): string | undefined {
  return isString(value) ? undefined : 'must be a string';
}
function boolean(value: unknown): string | undefined {
  return typeof value === 'boolean' ? undefined : 'must be true or false';
}
function oneOf(values: string[]): string {
  return `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
}
function isString(value: unknown): value is string {
  return typeof value === 'string';
}
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isListOf(value: unknown, item: (v: unknown) => boolean): boolean {
  return Array.isArray(value) && value.every(item);
}
