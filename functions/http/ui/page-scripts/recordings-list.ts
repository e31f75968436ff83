/**
 * The status page's script for ended sessions with recordings (ui/recordings.js): lists them, searches them
 * by test name, user, session, build or label, filters them by result, build and label, and plays each video in the page. Everything is rendered with textContent,
 * never as HTML; the list is refreshed only while no video plays, so watching one is never interrupted.
 * Compiled to ui-recordings-script.ts by scripts/page-scripts.mjs.
 */
import type { RecordingList, RecordingView } from '../ui-views';
import { el, groupingText, link, resultClass, resultText } from './dom';

const REFRESH_MS = 10000;

function cell(row: HTMLTableRowElement, child: string | Node | null): void {
  const td = el('td');
  if (typeof child === 'string') td.textContent = child;
  else if (child) td.appendChild(child);
  else td.textContent = '—';
  row.appendChild(td);
}

/** The session's logs: the driver's, the console's and the network's (HAR), those it has. */
function logLinks(recording: RecordingView): HTMLElement | null {
  const links: [string | undefined, string][] = [
    [recording.logUrl, 'driver'],
    [recording.consoleUrl, 'console'],
    [recording.harUrl, 'HAR'],
  ];
  const given = links.filter((pair): pair is [string, string] => pair[0] !== undefined);
  if (given.length === 0) return null;
  const span = el('span', 'logs');
  given.forEach(([href, text], at) => {
    if (at > 0) span.appendChild(document.createTextNode(' · '));
    span.appendChild(link(href, text));
  });
  return span;
}

function row(recording: RecordingView): HTMLTableRowElement {
  const tr = el('tr');
  tr.setAttribute('data-key', recording.key);
  cell(tr, new Date(recording.endedAt || recording.createdAt).toLocaleString());
  const name = el('span', null, recording.name || '(no name)');
  name.appendChild(el('span', 'meta key', ` ${recording.key}`));
  const grouping = groupingText(recording);
  if (grouping) name.appendChild(el('div', 'meta grouping', grouping));
  cell(tr, name);
  cell(tr, recording.user);
  cell(tr, `${recording.browserName} ${recording.browserVersion}`);
  cell(tr, recording.endReason || '');
  const result = el('span', resultClass(recording), resultText(recording));
  cell(tr, result);
  let video: HTMLVideoElement | null = null;
  if (recording.videoUrl) {
    video = el('video', 'recording');
    video.controls = true;
    video.preload = 'metadata';
    video.src = recording.videoUrl;
  }
  // A video recorded but deleted at the end (recording.keep: failed) says why, rather than a dash.
  cell(tr, video ?? (recording.videoNotKept ? el('span', 'meta', recording.videoNotKept) : null));
  cell(tr, logLinks(recording));
  let shot: HTMLImageElement | null = null;
  if (recording.screenshotUrl) {
    shot = el('img', 'last-frame');
    shot.alt = 'The last thing the browser showed';
    shot.src = recording.screenshotUrl;
  }
  cell(tr, shot);
  return tr;
}

/** The list's search box and filters (ui-page.ts). */
interface Filters {
  search: HTMLInputElement;
  result: HTMLSelectElement;
  build: HTMLInputElement;
  label: HTMLInputElement;
}

function showRecordings(table: HTMLTableElement, filters: Filters): void {
  const { search } = filters;
  let shown = '';

  const playing = () => Array.from(table.querySelectorAll('video')).some((video) => !video.paused);

  function load(force: boolean): void {
    if (!force && playing()) return;
    const params = new URLSearchParams({
      q: search.value.trim(),
      result: filters.result.value,
      build: filters.build.value.trim(),
      label: filters.label.value.trim(),
    });
    const query = params.toString();
    fetch(`ui/api/recordings?${query}`, {
      headers: { accept: 'application/json' },
      cache: 'no-store',
    })
      .then((response) => response.json() as Promise<Partial<RecordingList>>)
      .then((data) => {
        const recordings = data.recordings || [];
        const keys = `${query}|${recordings.map((r) => r.key).join(',')}`;
        if (keys === shown) return;
        shown = keys;
        const tbody = table.tBodies[0];
        if (!tbody) return;
        tbody.textContent = '';
        if (recordings.length === 0) {
          const empty = el('tr', 'empty');
          const td = el(
            'td',
            null,
            query === new URLSearchParams({ q: '', result: '', build: '', label: '' }).toString()
              ? 'No ended session has a video or a log.'
              : 'No ended session matches.',
          );
          td.colSpan = 9;
          empty.appendChild(td);
          tbody.appendChild(empty);
        }
        for (const recording of recordings) tbody.appendChild(row(recording));
      })
      .catch(() => {});
  }

  let typing: number | undefined;
  for (const input of [search, filters.build, filters.label]) {
    input.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => load(true), 250);
    });
  }
  filters.result.addEventListener('change', () => load(true));
  load(true);
  setInterval(() => load(false), REFRESH_MS);
}

// Only the overview has the list (the script is not loaded on a session's page).
const table = document.getElementById('recordings');
const filters = {
  search: document.getElementById('recordings-search'),
  result: document.getElementById('recordings-result'),
  build: document.getElementById('recordings-build'),
  label: document.getElementById('recordings-label'),
};
if (
  table instanceof HTMLTableElement &&
  filters.search instanceof HTMLInputElement &&
  filters.result instanceof HTMLSelectElement &&
  filters.build instanceof HTMLInputElement &&
  filters.label instanceof HTMLInputElement
) {
  showRecordings(table, filters as Filters);
}
