/**
 * What a WebSocket that is itself a session asks for, read from its URL and headers: Playwright's own protocol
 * (`browserType.connect`) or a CDP client (Puppeteer's `connect`, Playwright's `connectOverCDP`), in the URL
 * shapes users already have in their configs (Moon, selenosis, Browserless). Pure: the WebSocket layer
 * authenticates, creates the session and relays.
 *
 * - CDP: `/devtools/{browser}[/{version}]` (Moon), `/`, `/chromium`, `/chrome` (Browserless, `?token=`).
 * - Playwright: `/playwright/{browser}[/playwright-{version}]` (Moon), `/playwright/{browser}/{version}`
 *   (selenosis), `/{browser}/playwright` and `/playwright` (Browserless); the browser also from
 *   `x-playwright-browser` (`?browser=` overrides, as in Playwright's own server), and the client's
 *   `exposeNetwork` from `x-playwright-proxy` (`?proxy=` overrides, likewise).
 * Query options: `name` (the test's name), `enableVideo=true`, `arg` (Chromium switches, repeatable; held to
 * the switch allowlist as any session's), `screenResolution=WxH`, `token` (see request-user.ts).
 */
import { invalidArgument, WebDriverError } from './errors';
import { type ExposedNetwork, exposedNetwork } from './exposed-network';

export type SocketSessionProtocol = 'cdp' | 'playwright';

export interface SocketSessionRequest {
  protocol: SocketSessionProtocol;
  /** As the client named it; the catalog resolves aliases (chromium → chrome). */
  browserName: string;
  /** The browser's version, for CDP clients that name one in the path. */
  browserVersion?: string;
  /** major.minor.patch of the Playwright client (its User-Agent), or of the path when the client says none. */
  playwrightVersion?: string;
  /** What a Playwright client's browser reaches through the client's own network (its exposeNetwork). */
  exposedNetwork?: ExposedNetwork;
  /** The capabilities of the WebDriver session the connection is. */
  capabilities: Record<string, unknown>;
}

export interface SocketSessionSignals {
  pathname: string;
  query: URLSearchParams;
  header: (name: string) => string | undefined;
}

const PLAYWRIGHT_VERSION = /^(?:playwright-)?(\d+\.\d+(?:\.\d+)?)$/;
const USER_AGENT_VERSION = /^Playwright\/(\d+\.\d+\.\d+)/;
const RESOLUTION = /^(\d{2,5})x(\d{2,5})(?:x\d{1,2})?$/;
// Playwright's own server serves these; gridgate attaches Playwright to a Chromium over CDP, which only a
// Chromium-family browser speaks.
const PLAYWRIGHT_BROWSERS = new Set(['chromium', 'chrome', 'msedge', 'MicrosoftEdge']);

/**
 * The session a WebSocket to `pathname` asks for; undefined when the path is no such endpoint (a WebDriver
 * session's socket, Selenoid's). `isBrowser` tells a browser's name from a session ID in `/devtools/{…}`.
 */
export function socketSessionRequest(
  signals: SocketSessionSignals,
  isBrowser: (name: string) => boolean,
): SocketSessionRequest | undefined {
  const segments = signals.pathname.split('/').filter(Boolean).map(decodeSegment);
  const [first, second, third, ...more] = segments;
  if (more.length > 0) return undefined;
  if (first === undefined) return cdp(signals, 'chromium');
  if (first === 'devtools' && second !== undefined && isBrowser(second) && !more.length)
    return cdp(signals, second, third);
  if ((first === 'chromium' || first === 'chrome') && second === undefined) return cdp(signals, first);
  if (first === 'playwright') return playwright(signals, second, third);
  if (second === 'playwright' && third === undefined && isBrowser(first)) return playwright(signals, first);
  return undefined;
}

function cdp(
  signals: SocketSessionSignals,
  browserName: string,
  browserVersion?: string,
): SocketSessionRequest {
  return {
    protocol: 'cdp',
    browserName,
    ...(browserVersion ? { browserVersion } : {}),
    capabilities: capabilitiesOf('cdp', signals.query, browserName, browserVersion),
  };
}

function playwright(
  signals: SocketSessionSignals,
  pathBrowser: string | undefined,
  pathVersion?: string,
): SocketSessionRequest {
  const browserName =
    signals.query.get('browser') || signals.header('x-playwright-browser') || pathBrowser || 'chromium';
  if (!PLAYWRIGHT_BROWSERS.has(browserName)) {
    throw new WebDriverError(
      'session not created',
      `Playwright's ${browserName} needs Playwright's own build of it; this grid serves Playwright with chromium`,
    );
  }
  const asked = pathVersion === undefined ? undefined : PLAYWRIGHT_VERSION.exec(pathVersion)?.[1];
  if (pathVersion !== undefined && asked === undefined)
    throw invalidArgument(`"${pathVersion}" is not a Playwright version (playwright-1.2 or 1.2.3)`);
  const client = USER_AGENT_VERSION.exec(signals.header('user-agent') ?? '')?.[1];
  if (asked && client && majorMinor(asked) !== majorMinor(client)) throw versionMismatch(asked, client);
  const playwrightVersion = client ?? asked;
  const exposed = exposedNetwork(signals.query.get('proxy') || signals.header('x-playwright-proxy'));
  return {
    protocol: 'playwright',
    browserName,
    ...(playwrightVersion ? { playwrightVersion } : {}),
    ...(exposed ? { exposedNetwork: exposed } : {}),
    capabilities: capabilitiesOf('playwright', signals.query, browserName),
  };
}

// Chromium's names in Playwright's and Puppeteer's words (and Browserless's paths) and in catalogs.
const CHROMIUM_NAMES = new Set(['chromium', 'chrome']);

/**
 * The request with the catalog's name for its browser: the one it names (or aliases), else, for a client that
 * asks for Chromium by any of its names, the catalog's Chromium (a hub pool's catalog may say only `chrome`,
 * Playwright always says `chromium`). A browser the catalog lacks is left as asked: `POST /session` refuses
 * it as it refuses any client's.
 */
export function withCatalogBrowser(
  asked: SocketSessionRequest,
  browsers: Record<string, { aliases: readonly string[] }>,
): SocketSessionRequest {
  const catalog = Object.entries(browsers).map(
    ([name, browser]) => [name, [name, ...browser.aliases]] as const,
  );
  const named = catalog.find(([, names]) => names.includes(asked.browserName));
  const chromium = CHROMIUM_NAMES.has(asked.browserName)
    ? catalog.find(([, names]) => names.some((name) => CHROMIUM_NAMES.has(name)))
    : undefined;
  const browserName = (named ?? chromium)?.[0];
  if (browserName === undefined || browserName === asked.browserName) return asked;
  return { ...asked, browserName, capabilities: { ...asked.capabilities, browserName } };
}

/**
 * Playwright's own answer to a client of another major.minor (HTTP 428, remote/playwrightServer.ts): its
 * protocol changes between minor versions, so a client never talks to another's server.
 */
function versionMismatch(asked: string, client: string): WebDriverError {
  return new WebDriverError(
    'session not created',
    `Playwright version mismatch: the URL asks for v${majorMinor(asked)}, the client is v${majorMinor(client)}`,
    { status: 428 },
  );
}

export function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** The WebDriver capabilities of the session, from Moon's and Browserless's query options. */
function capabilitiesOf(
  protocol: SocketSessionProtocol,
  query: URLSearchParams,
  browserName: string,
  browserVersion?: string,
): Record<string, unknown> {
  const args = query.getAll('arg');
  const resolution = query.get('screenResolution');
  if (resolution) {
    const size = RESOLUTION.exec(resolution);
    if (!size) throw invalidArgument(`screenResolution "${resolution}" is not WIDTHxHEIGHT`);
    args.push(`--window-size=${size[1]},${size[2]}`);
  }
  const name = query.get('name');
  const video = query.get('enableVideo');
  if (video !== null && video !== 'true' && video !== 'false')
    throw invalidArgument(`enableVideo is true or false, not "${video}"`);
  return {
    browserName,
    ...(browserVersion ? { browserVersion } : {}),
    // The status page shows the session as this protocol's (session-protocol.ts).
    'gridgate:options': { protocol },
    ...(name ? { 'se:name': name } : {}),
    ...(video ? { 'se:recordVideo': video === 'true' } : {}),
    ...(args.length ? { 'goog:chromeOptions': { args } } : {}),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
