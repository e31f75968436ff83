/**
 * The status page's HTML: a shell for the overview and one for a session's page, filled in and kept
 * fresh by its scripts (page-scripts/). Every URL in it is relative ("ui/…"), so the page works under any
 * path prefix a proxy or an API Gateway stage puts in front, from both /ui and /. Nothing from the request
 * is written into it: the script reads the session key from the address bar and renders data as text.
 */

/** How often the page asks for fresh data and a new screenshot. */
export const UI_REFRESH_MS = 3000;

export type UiView = 'overview' | 'session';

export interface PageOptions {
  view: UiView;
  /** Offer "sign in" (only when a users file exists: without one, credentials mean nothing). */
  canSignIn: boolean;
}

const OVERVIEW = `
<section>
  <h2>Pools</h2>
  <table id="pools">
    <thead><tr><th>Pool</th><th>Kind</th><th>Colour</th><th class="number">Capacity</th>
      <th class="number">In use</th><th class="number">Queued</th><th class="number">Warm</th></tr></thead>
    <tbody></tbody>
  </table>
</section>
<section>
  <h2>Sessions</h2>
  <table id="sessions">
    <thead><tr><th>Session</th><th>Test</th><th>User</th><th>Browser</th><th>Pool</th><th>Colour</th>
      <th class="number">Age</th><th class="number">Idle</th><th>Commands</th>
      <th class="number" title="Estimated so far, for cloud sessions">Cost</th><th>State</th>
      <th title="As the test said: se/event, an executor script, or PUT ui/api/sessions/{id}">Result</th></tr></thead>
    <tbody></tbody>
  </table>
</section>
<section>
  <h2>Recent failures</h2>
  <table id="failures">
    <thead><tr><th>When</th><th>User</th><th>Session</th><th>Reason</th></tr></thead>
    <tbody></tbody>
  </table>
  <p class="meta">New sessions this server failed to create lately (kept in its memory only).</p>
</section>
<section>
  <h2>Ended sessions with recordings</h2>
  <p><input id="recordings-search" type="search" placeholder="Search by test name, user, session, build or label"
    aria-label="Search ended sessions by test name, user, session, build or label">
    <select id="recordings-result" aria-label="Only sessions whose test had this result">
      <option value="">any result</option><option value="failed">failed</option>
      <option value="passed">passed</option><option value="unknown">unknown</option></select>
    <input id="recordings-build" type="search" placeholder="Build" aria-label="Only sessions of this build">
    <input id="recordings-label" type="search" placeholder="Label (name or name=value)"
      aria-label="Only sessions with this label"></p>
  <table id="recordings">
    <thead><tr><th>Ended</th><th>Test</th><th>User</th><th>Browser</th><th>Ended by</th><th>Result</th>
      <th>Video</th><th title="The driver's log, and the console and network (HAR) the grid captured">Logs</th><th>Last screen</th></tr></thead>
    <tbody></tbody>
  </table>
  <p class="meta">Videos and logs sessions asked for, kept for the configured retention. The last screen is
    shown for sessions that did not end by their own DELETE (an idle timeout, a crashed browser, a shutdown).</p>
</section>`;

const SESSION = `
<p><a href="ui">&larr; All sessions</a></p>
<h2>Session <span id="session-key" class="key"></span></h2>
<div class="columns">
  <section>
    <dl id="details"></dl>
    <h2>Events</h2>
    <ol id="events" class="events"></ol>
    <p class="meta">Commands are counted as they pass through gridgate (with several routers sharing a table,
      the count may lag by up to a quarter of a minute); WebSocket traffic is not counted.</p>
    <p><button id="end-session" type="button" disabled>End session</button></p>
    <p id="end-status" role="status"></p>
  </section>
  <section>
    <h2>Live view</h2>
    <iframe id="vnc" title="The browser's screen, live (VNC)" hidden></iframe>
    <img id="screen" alt="The browser's screen">
    <p id="live-status" class="meta" role="status">Waiting for the first screenshot…</p>
    <p id="screen-note" class="meta">A screenshot every ${UI_REFRESH_MS / 1000} s while this page is open and
      visible: each one costs the browser a little work.</p>
    <p id="vnc-note" class="meta" hidden>The browser's own VNC view (noVNC), view only, through gridgate: it
      streams while this page is open and costs the browser's machine some CPU and the network some traffic.</p>
  </section>
</div>`;

export function statusPage(options: PageOptions): string {
  const signIn = options.canSignIn ? ' · <a href="ui?signin">Sign in as another user</a>' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gridgate status</title>
<link rel="stylesheet" href="ui/style.css">
<script src="ui/app.js" defer></script>
${options.view === 'overview' ? '<script src="ui/recordings.js" defer></script>' : ''}
</head>
<body data-view="${options.view}" data-refresh-ms="${UI_REFRESH_MS}">
<header>
  <h1><a href="ui">gridgate</a></h1>
  <span class="meta">version <span id="version">…</span></span>
  <span class="meta">up <span id="uptime">…</span></span>
  <span class="meta">signed in as <span id="viewer">…</span></span>
  <span id="load-error" class="error" role="alert"></span>
</header>
<main>${options.view === 'overview' ? OVERVIEW : SESSION}</main>
<footer>Refreshes every ${UI_REFRESH_MS / 1000} s${signIn}.</footer>
</body>
</html>
`;
}

/**
 * Only this page's own script, style, data and screenshots (blob: for the live view's images), and
 * frames of its own origin (the VNC view, ui-vnc.ts): any text a browser or a user put into a session's
 * details stays text.
 */
export const UI_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self'; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * The headers of gridgate's own error answers. Under the status page's paths (`/ui…`, and `/` asked for
 * HTML) the page's
 * own, so a 401 or 404 a browser shows is as locked down as the page; elsewhere the same minus
 * `no-store`, where W3C WebDriver §6.3 asks for `Cache-Control: no-cache`.
 */
export function errorSecurityHeaders(path: string, html: boolean): Record<string, string> {
  if ((path === '/' && html) || path === '/ui' || path.startsWith('/ui/')) return UI_SECURITY_HEADERS;
  const { 'cache-control': _page, ...rest } = UI_SECURITY_HEADERS;
  return rest;
}
