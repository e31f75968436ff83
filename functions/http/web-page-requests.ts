/**
 * Tells requests a web page made apart from those of WebDriver clients, and refuses the first kind
 * (DESIGN invariant 7): a page on any site, open in a browser that can reach the grid, must not start
 * or drive sessions. WebDriver clients send no `Origin` and no `Sec-Fetch-*` headers, and say their
 * bodies are JSON or say nothing; a browser marks every cross-origin request it sends with `Origin`
 * (the Fetch standard sends it on every POST, no-cors and beacons included), and cannot send
 * `Content-Type: application/json` to another origin without a CORS preflight, which gridgate never
 * answers. The same checks as chromedriver's `--allowed-origins` and Selenium Grid's. And DNS rebinding:
 * a page at a name its site points at the grid's address afterwards sends an Origin that matches the Host
 * it names, as the grid's own pages do; only the names the grid knows tell the two apart.
 */
import type { Config } from '../core/config';
import { invalidArgument, type WebDriverError } from '../core/errors';

/** What a request says about where it comes from; header values as received (undefined when absent). */
export interface RequestSignals {
  method: string;
  path: string;
  origin?: string;
  /** Fetch Metadata (`Sec-Fetch-Site`, `Sec-Fetch-Mode`), sent by every current browser. */
  fetchSite?: string;
  fetchMode?: string;
  contentType?: string;
  host?: string;
  forwardedHost?: string;
}

export interface OriginPolicy {
  /** The grid's public base URL, when configured: its origin is the grid's own, its host one of its names. */
  publicUrl?: string;
  /** Other sites' origins whose pages may use the grid (`allowedOrigins`). */
  allowedOrigins: readonly string[];
  /** Other names of the grid (`allowedHosts`): "grid.example.com", or ".example.com" for it and its subdomains. */
  allowedHosts: readonly string[];
  /** Colour base domains (`colors.baseDomains`): the names under each are the grid's too. */
  colorDomains: readonly string[];
  /**
   * A browser's request must name the grid by a name it knows (see knownHost), or a page at a name
   * rebound to the grid's address would pass as the grid's own. True wherever the grid is reached over
   * plain HTTP at whatever name resolves to it (the Node server); false behind a front door that answers
   * only its own names, over TLS (API Gateway, a function URL), where a rebound name fails the certificate.
   */
  knownHostsOnly: boolean;
}

/** The signals of a request, from any way of reading its headers (Hono's, Node's IncomingMessage). */
export function signalsOf(
  method: string,
  url: URL,
  header: (name: string) => string | undefined,
): RequestSignals {
  return {
    method,
    path: url.pathname,
    origin: header('origin'),
    fetchSite: header('sec-fetch-site'),
    fetchMode: header('sec-fetch-mode'),
    contentType: header('content-type'),
    // A Fetch API Request has no Host header: its URL says which host was asked.
    host: header('host') ?? url.host,
    forwardedHost: header('x-forwarded-host'),
  };
}

/** The policy a config sets, read per request so a reload applies at once. */
export function originPolicy(config: Config, knownHostsOnly: boolean): OriginPolicy {
  return {
    publicUrl: config.publicUrl,
    allowedOrigins: config.allowedOrigins,
    allowedHosts: config.allowedHosts,
    colorDomains: config.colors.baseDomains,
    knownHostsOnly,
  };
}

// Every WebDriver path, at either root (W3C WebDriver §6.1 endpoints all live under /session).
const WEBDRIVER_PATH = /^(?:\/wd\/hub)?\/session(?:\/|$)/;
// The status page and its data (http/ui/ui-routes.ts): the root serves the page to a browser too.
const STATUS_PAGE_PATH = /^\/(?:$|ui(?:\/|$))/;
// A host name as the URL parser leaves it: an IPv4 address in four decimals, an IPv6 one in brackets.
const IP_ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/;

/** Whether a listen address (`host`) takes connections from this machine only. */
export function isLoopbackAddress(address: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(address);
}

/** Refuses a request another site's page made (403), or undefined when it may go on. */
export function crossSiteRefusal(request: RequestSignals, policy: OriginPolicy): WebDriverError | undefined {
  const reason = crossSiteReason(request, policy);
  return reason ? invalidArgument(reason, { status: 403 }) : undefined;
}

/**
 * Refuses a POST to a WebDriver path whose body says it is something other than JSON. W3C WebDriver
 * §6.3 reads a command's body as JSON whatever its headers say, and some clients (the WebDriver
 * conformance tests' own) send no Content-Type at all, so only a type that is not JSON is refused: HTML
 * forms always send one (text/plain, urlencoded or multipart), so this alone stops a forged form. A
 * body with no type can come from a page only through fetch or a beacon, which carry `Origin`.
 */
export function nonJsonRefusal(request: RequestSignals): WebDriverError | undefined {
  const { contentType } = request;
  if (
    request.method !== 'POST' ||
    !WEBDRIVER_PATH.test(request.path) ||
    contentType === undefined ||
    isJson(contentType)
  ) {
    return undefined;
  }
  return invalidArgument(
    `WebDriver requests must send JSON (Content-Type: application/json), not ${contentType}`,
  );
}

function crossSiteReason(request: RequestSignals, policy: OriginPolicy): string | undefined {
  const { origin } = request;
  if (origin !== undefined && !trustedOrigin(origin, policy) && !sameHost(origin, addressedHost(request))) {
    return `requests from web pages of ${origin} are refused; only the grid's own pages and WebDriver clients may use it (see allowedOrigins)`;
  }
  const explicitlyAllowed = origin !== undefined && trustedOrigin(origin, policy);
  // Fetch Metadata marks requests another site's page made even where no Origin is sent (GET
  // subresources); following a link to the status page is a navigation and stays allowed.
  const site = request.fetchSite?.toLowerCase();
  const navigation =
    request.fetchMode?.toLowerCase() === 'navigate' && ['GET', 'HEAD'].includes(request.method);
  if ((site === 'cross-site' || site === 'same-site') && !explicitlyAllowed && !navigation) {
    return `requests another site's page made (Sec-Fetch-Site: ${site}) are refused`;
  }
  // Over plain HTTP a page's GET carries neither Origin nor Fetch Metadata (browsers send Sec-Fetch-* to
  // trustworthy origins only): it looks like a WebDriver client's. The status page's paths, which only
  // browsers use, are checked whatever a request carries; elsewhere a page's GET would need a session ID,
  // which it cannot learn: the status page that lists them is refused, and IDs are signed.
  const fromBrowser = origin !== undefined || site !== undefined;
  const forPeople = STATUS_PAGE_PATH.test(request.path);
  const host = addressedHost(request);
  if (policy.knownHostsOnly && (fromBrowser || forPeople) && !explicitlyAllowed && !knownHost(host, policy)) {
    return `web pages may use this grid only at a name it knows, not ${host ?? 'no name'}: a page at another name may be another site's, its name pointed at this grid (DNS rebinding); open it at localhost or its IP address, or name it in publicUrl or allowedHosts`;
  }
  return undefined;
}

function trustedOrigin(origin: string, policy: OriginPolicy): boolean {
  const own = policy.publicUrl ? originOf(policy.publicUrl) : undefined;
  return origin === own || policy.allowedOrigins.includes(origin);
}

/** The host the client addressed: what a proxy in front was asked, else the Host header. */
function addressedHost(request: RequestSignals): string | undefined {
  return request.forwardedHost?.split(',')[0]?.trim() || request.host;
}

/**
 * Whether a host (any port) is a name of the grid's: localhost; an IP address, which no DNS answer can
 * rebind (Vite's and webpack-dev-server's host checks let these in too); publicUrl's host; a name in
 * allowedHosts; or a name under a colour base domain. Those are the operator's names, not another site's.
 */
function knownHost(host: string | undefined, policy: OriginPolicy): boolean {
  const name = host === undefined ? undefined : hostnameOf(`http://${host}`);
  if (name === undefined) return false;
  if (name === 'localhost' || IP_ADDRESS.test(name)) return true;
  if (policy.publicUrl !== undefined && hostnameOf(policy.publicUrl) === name) return true;
  const allowed = policy.allowedHosts.some((entry) =>
    entry.startsWith('.') ? name === entry.slice(1) || name.endsWith(entry) : name === entry,
  );
  return allowed || policy.colorDomains.some((domain) => name.endsWith(`.${domain}`));
}

/** A URL's host name as the URL parser spells it (lower case, IPv4 in four decimals), or undefined. */
function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function sameHost(url: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(url).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** `application/json`, with or without parameters (`; charset=utf-8`, Python's `;charset=UTF-8`). */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
