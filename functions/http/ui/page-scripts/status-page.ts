/**
 * The status page's script (ui/app.js): polls the page's JSON endpoints and renders the overview or one
 * session's page (its details, events, live view and "End session"), everything with textContent, never as
 * HTML. Compiled to ui-script.ts by scripts/page-scripts.mjs.
 */
import type { CreationStage } from '../../../core/creation-stage';
import type { Overview, PageHeader, SessionDetail, SessionRecordings } from '../ui-views';
import { byId, el, failureMessage, groupingText, link, resultClass, resultText } from './dom';

/** How the page names each protocol a session's client speaks (core/session-protocol.ts). */
const PROTOCOLS = { webdriver: 'WebDriver', cdp: 'CDP', playwright: 'Playwright' } as const;

const body = document.body;
const REFRESH_MS = Number(body.getAttribute('data-refresh-ms')) || 3000;
const params = new URLSearchParams(location.search);

const span = (id: string) => byId(id, HTMLElement);
const table = (id: string) => byId(id, HTMLTableElement);

function cell(row: HTMLTableRowElement, text: string | number | undefined, className?: string) {
  const td = el('td', className, text);
  row.appendChild(td);
  return td;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? ` ${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 ? ` ${m % 60}m` : ''}`;
}

function time(at: number): string {
  return new Date(at).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

// What each creation stage means to someone waiting.
const STAGES: Record<CreationStage, string> = {
  queue: 'queued',
  launch: 'launching the browser',
  pull: 'pulling its image',
  driver: 'waiting for its driver',
  session: 'opening the session',
};

function commandsCell(row: HTMLTableRowElement, count: number, last: string | undefined) {
  const td = cell(row, count);
  if (last) td.appendChild(el('span', 'meta', ` · ${last}`));
  return td;
}

const sessionHref = (key: string) => `ui?session=${encodeURIComponent(key)}`;
const sessionApi = (key: string) => `ui/api/sessions/${encodeURIComponent(key)}`;

function colourTag(row: HTMLTableRowElement, colour: string | undefined): void {
  const td = cell(row, '');
  if (colour) td.appendChild(el('span', 'tag', colour));
  else td.textContent = '—';
}

function replaceRows(
  into: HTMLTableElement,
  rows: HTMLTableRowElement[],
  columns: number,
  emptyText: string,
) {
  const tbody = into.tBodies[0];
  if (!tbody) return;
  tbody.textContent = '';
  if (rows.length === 0) {
    const empty = el('tr', 'empty');
    cell(empty, emptyText).colSpan = columns;
    tbody.appendChild(empty);
    return;
  }
  for (const row of rows) tbody.appendChild(row);
}

function getJson<T>(url: string): Promise<T> {
  return fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' }).then((response) =>
    response.json().then((data: unknown) => {
      if (!response.ok) throw new Error(failureMessage(data, response.status));
      return data as T;
    }),
  );
}

function showLoadError(error: unknown): void {
  span('load-error').textContent = error instanceof Error ? `Not updated: ${error.message}` : '';
}

function header(data: PageHeader): void {
  span('version').textContent = data.version;
  span('uptime').textContent = data.uptime;
  span('viewer').textContent = data.viewer.user + (data.viewer.admin ? ' (admin)' : '');
}

/** Runs load now and again REFRESH_MS after each run ends, so a slow server is never asked twice at once. */
function poll(load: () => Promise<void>): void {
  const next = () => {
    setTimeout(tick, REFRESH_MS);
  };
  function tick() {
    load()
      .then(() => showLoadError(null), showLoadError)
      .then(next, next);
  }
  tick();
}

function renderOverview(data: Overview): void {
  header(data);
  const pools = data.pools.map((pool) => {
    const row = el('tr');
    row.setAttribute('data-pool', pool.name);
    cell(row, pool.name);
    cell(row, pool.kind + (pool.region ? ` (${pool.region})` : ''));
    colourTag(row, pool.color);
    cell(row, pool.capacity, 'number');
    cell(row, pool.inUse, 'number');
    cell(row, pool.queued, 'number');
    cell(row, pool.warm, 'number');
    return row;
  });
  replaceRows(table('pools'), pools, 7, 'No pools configured');
  const starting = data.starting.map((start) => {
    const row = el('tr');
    row.setAttribute('data-starting', start.key);
    cell(row, start.key, 'key');
    cell(row, '');
    cell(row, start.user);
    cell(row, '');
    cell(row, start.pool);
    cell(row, '');
    cell(row, duration(start.ageMs), 'number');
    cell(row, '', 'number');
    cell(row, '');
    cell(row, '', 'number');
    const stage = start.stage ? `: ${STAGES[start.stage]} (${duration(start.stageMs ?? 0)})` : '';
    cell(row, `starting${stage}`, 'state-starting').setAttribute('data-stage', start.stage ?? '');
    cell(row, '');
    return row;
  });
  const sessions = data.sessions.map((session) => {
    const row = el('tr');
    row.setAttribute('data-session', session.key);
    const link = el('a', 'key', session.key);
    link.href = sessionHref(session.key);
    cell(row, '').appendChild(link);
    const test = cell(row, session.name ?? '', 'test-name');
    const grouping = groupingText(session);
    if (grouping) test.appendChild(el('div', 'meta grouping', grouping));
    cell(row, session.user);
    const browser = cell(row, `${session.browserName} ${session.browserVersion}`);
    // WebDriver is the rule; a session that is one WebSocket says which protocol it speaks.
    if (session.protocol !== 'webdriver')
      browser.appendChild(el('div', 'meta protocol', PROTOCOLS[session.protocol]));
    cell(row, session.pool);
    colourTag(row, session.color);
    cell(row, duration(session.ageMs), 'number');
    cell(row, duration(session.idleMs), 'number');
    commandsCell(row, session.commands, session.lastCommand);
    // Local and hub browsers are not billed per session: no figure, not a zero.
    cell(row, session.cost ? `$${session.cost.dollars.toFixed(4)}` : '—', 'number');
    cell(row, session.state, `state-${session.state}`);
    cell(row, resultText(session), resultClass(session));
    return row;
  });
  const none = data.viewer.admin ? 'No sessions running' : 'You have no sessions running';
  replaceRows(table('sessions'), starting.concat(sessions), 12, none);
  const failures = data.failures.map((failure) => {
    const row = el('tr');
    cell(row, time(failure.at));
    cell(row, failure.user);
    cell(row, failure.session, 'key');
    cell(row, failure.reason);
    return row;
  });
  replaceRows(table('failures'), failures, 4, 'None lately');
}

function detail(list: HTMLElement, name: string, value: string): void {
  list.appendChild(el('dt', '', name));
  list.appendChild(el('dd', '', value));
}

/**
 * An ended session's files, linked as the recordings list links them (the same URLs, the same owner-or-admin
 * rule), and why its video is missing when it was not kept.
 */
function recordingLinks(recordings: SessionRecordings): HTMLElement {
  const links: [string | undefined, string][] = [
    [recordings.videoUrl, 'video'],
    [recordings.logUrl, 'driver log'],
    [recordings.consoleUrl, 'console'],
    [recordings.harUrl, 'HAR'],
    [recordings.screenshotUrl, 'last screen'],
  ];
  const parts: Node[] = links.flatMap(([href, text]) => (href ? [link(href, text)] : []));
  if (recordings.videoNotKept) parts.push(el('span', 'meta', `video ${recordings.videoNotKept}`));
  const shown = el('span', 'recordings');
  parts.forEach((part, at) => {
    if (at > 0) shown.appendChild(document.createTextNode(' · '));
    shown.appendChild(part);
  });
  return shown;
}

function sessionPage(key: string): void {
  let running = false;
  let ended = false;
  let shown: string | null = null;
  let screenTimer: number | null = null;
  let loading = false;
  let vnc = false;
  let vncFailed = false;
  span('session-key').textContent = key;
  const status = (text: string) => {
    span('live-status').textContent = text;
  };

  function render(data: PageHeader & { session: SessionDetail }): void {
    header(data);
    const s = data.session;
    running = s.state === 'running';
    const list = byId('details', HTMLDListElement);
    list.textContent = '';
    detail(list, 'State', s.state + (s.endReason ? ` (${s.endReason})` : ''));
    detail(list, 'Test', s.name || '(no name)');
    detail(list, 'Result', resultText(s));
    detail(list, 'Build', groupingText(s) || '—');
    detail(list, 'User', s.user);
    detail(list, 'Browser', `${s.browserName} ${s.browserVersion}`);
    detail(list, 'Protocol', PROTOCOLS[s.protocol]);
    detail(list, 'Pool', s.pool + (s.poolKind ? ` (${s.poolKind})` : ''));
    detail(list, 'Colour', s.color || '—');
    detail(list, 'Created', time(s.createdAt));
    detail(list, 'Age', duration(s.ageMs));
    detail(list, 'Idle', duration(s.idleMs));
    detail(list, 'Idle timeout', duration(s.idleTimeoutMs));
    detail(list, 'Maximum age', duration(s.maxAgeMs));
    detail(list, 'Commands', s.commands + (s.lastCommand ? ` (last: ${s.lastCommand})` : ''));
    if (s.cost) {
      const billed = `${duration(s.cost.billedSeconds * 1000)} billed, ${s.cost.capacity}`;
      detail(
        list,
        'Estimated cost',
        `$${s.cost.dollars.toFixed(4)}${s.cost.final ? '' : ' so far'} (${billed})`,
      );
    }
    if (s.recordings) {
      list.appendChild(el('dt', '', 'Recordings'));
      list.appendChild(el('dd')).appendChild(recordingLinks(s.recordings));
    }
    const events = byId('events', HTMLOListElement);
    events.textContent = '';
    for (const event of s.events) {
      const item = el('li');
      item.appendChild(el('span', 'meta', `${time(event.at)} `));
      item.appendChild(document.createTextNode(event.what));
      events.appendChild(item);
    }
    byId('end-session', HTMLButtonElement).disabled = !running || ended;
    if (running && s.vnc && !vnc && !vncFailed) showVnc(s.vnc.password);
    if (!running) {
      status('The session has ended: no live view.');
      byId('screen', HTMLImageElement).hidden = true;
      span('screen-note').hidden = true;
      const frame = byId('vnc', HTMLIFrameElement);
      frame.hidden = true;
      frame.removeAttribute('src');
    }
  }

  /** The browser's noVNC page through gridgate, its WebSocket path ours (noVNC takes it from the root). */
  function showVnc(password: string): void {
    vnc = true;
    const base = `${sessionApi(key)}/vnc/`;
    // Asked first, so a browser whose VNC port gridgate cannot reach falls back to screenshots.
    fetch(`${base}vnc.html`, { cache: 'no-store' })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        if (running) openVnc(base, password);
      })
      .catch((error: Error) => {
        vnc = false;
        vncFailed = true;
        status(`No VNC view (${error.message}): screenshots instead.`);
        refreshScreen();
      });
  }

  function openVnc(base: string, password: string): void {
    const query = new URLSearchParams({
      autoconnect: '1',
      reconnect: '1',
      resize: 'scale',
      view_only: '1',
      path: new URL(`${base}websockify`, location.href).pathname.slice(1),
      password,
    });
    const frame = byId('vnc', HTMLIFrameElement);
    frame.src = `${base}vnc.html?${query.toString()}`;
    frame.hidden = false;
    byId('screen', HTMLImageElement).hidden = true;
    span('screen-note').hidden = true;
    span('vnc-note').hidden = false;
    status('Live VNC view.');
  }

  function refreshScreen(): void {
    screenTimer = null;
    if (!running || vnc || loading || document.visibilityState !== 'visible') return;
    loading = true;
    const done = () => {
      loading = false;
      // Only while someone can see it: a hidden tab costs the browser nothing.
      if (running && !vnc && screenTimer === null && document.visibilityState === 'visible') {
        screenTimer = setTimeout(refreshScreen, REFRESH_MS);
      }
    };
    fetch(`${sessionApi(key)}/screenshot`, { cache: 'no-store' })
      .then((response) => {
        if (!response.ok) {
          return response.json().then((data: unknown) => {
            throw new Error(failureMessage(data, response.status));
          });
        }
        return response.blob().then((blob) => {
          const url = URL.createObjectURL(blob);
          const screen = byId('screen', HTMLImageElement);
          screen.onload = () => {
            if (shown) URL.revokeObjectURL(shown);
            shown = url;
          };
          screen.src = url;
          status(`Screenshot taken ${new Date().toLocaleTimeString()}.`);
        });
      })
      .catch((error: Error) => {
        if (running) status(`No screenshot: ${error.message}`);
      })
      .then(done, done);
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') {
      if (screenTimer === null) refreshScreen();
    } else if (screenTimer !== null) {
      clearTimeout(screenTimer);
      screenTimer = null;
    }
  });

  const button = byId('end-session', HTMLButtonElement);
  button.addEventListener('click', () => {
    if (!window.confirm(`End session ${key}? Its browser stops at once.`)) return;
    button.disabled = true;
    const endStatus = span('end-status');
    endStatus.textContent = 'Ending…';
    fetch(sessionApi(key), { method: 'DELETE', headers: { accept: 'application/json' } })
      .then((response) =>
        response.json().then((data: unknown) => {
          if (!response.ok) throw new Error(failureMessage(data, response.status));
          ended = true;
          running = false;
          endStatus.textContent = 'Session ended.';
          return getJson<PageHeader & { session: SessionDetail }>(sessionApi(key)).then(render);
        }),
      )
      .catch((error: Error) => {
        button.disabled = !running;
        endStatus.textContent = `Could not end it: ${error.message}`;
      });
  });

  let first = true;
  poll(() =>
    getJson<PageHeader & { session: SessionDetail }>(sessionApi(key)).then((data) => {
      render(data);
      if (first && running) refreshScreen();
      first = false;
    }),
  );
}

if (body.getAttribute('data-view') === 'session') sessionPage(params.get('session') ?? '');
else poll(() => getJson<Overview>('ui/api/overview').then(renderOverview));
