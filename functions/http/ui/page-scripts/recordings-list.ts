/**
 * The status page's script for ended sessions with recordings (ui/recordings.js): lists them, searches them
 * by test name, user or session, and plays each video in the page. Everything is rendered with textContent,
 * never as HTML; the list is refreshed only while no video plays, so watching one is never interrupted.
 * Compiled to ui-recordings-script.ts by scripts/page-scripts.mjs.
 */
import type { RecordingList, RecordingView } from '../ui-views';
import { el } from './dom';

const REFRESH_MS = 10000;

function cell(row: HTMLTableRowElement, child: string | Node | null): void {
  const td = el('td');
  if (typeof child === 'string') td.textContent = child;
  else if (child) td.appendChild(child);
  else td.textContent = '—';
  row.appendChild(td);
}

function link(href: string, text: string): HTMLAnchorElement {
  const a = el('a', null, text);
  a.href = href;
  return a;
}

function row(recording: RecordingView): HTMLTableRowElement {
  const tr = el('tr');
  tr.setAttribute('data-key', recording.key);
  cell(tr, new Date(recording.endedAt || recording.createdAt).toLocaleString());
  const name = el('span', null, recording.name || '(no name)');
  name.appendChild(el('span', 'meta key', ` ${recording.key}`));
  cell(tr, name);
  cell(tr, recording.user);
  cell(tr, `${recording.browserName} ${recording.browserVersion}`);
  cell(tr, recording.endReason || '');
  let video: HTMLVideoElement | null = null;
  if (recording.videoUrl) {
    video = el('video', 'recording');
    video.controls = true;
    video.preload = 'metadata';
    video.src = recording.videoUrl;
  }
  cell(tr, video);
  cell(tr, recording.logUrl ? link(recording.logUrl, 'log') : null);
  let shot: HTMLImageElement | null = null;
  if (recording.screenshotUrl) {
    shot = el('img', 'last-frame');
    shot.alt = 'The last thing the browser showed';
    shot.src = recording.screenshotUrl;
  }
  cell(tr, shot);
  return tr;
}

function showRecordings(table: HTMLTableElement, search: HTMLInputElement): void {
  let shown = '';

  const playing = () => Array.from(table.querySelectorAll('video')).some((video) => !video.paused);

  function load(force: boolean): void {
    if (!force && playing()) return;
    const query = search.value.trim();
    fetch(`ui/api/recordings?q=${encodeURIComponent(query)}`, {
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
            query ? 'No ended session matches.' : 'No ended session has a video or a log.',
          );
          td.colSpan = 8;
          empty.appendChild(td);
          tbody.appendChild(empty);
        }
        for (const recording of recordings) tbody.appendChild(row(recording));
      })
      .catch(() => {});
  }

  let typing: number | undefined;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(true), 250);
  });
  load(true);
  setInterval(() => load(false), REFRESH_MS);
}

// Only the overview has the list (the script is not loaded on a session's page).
const table = document.getElementById('recordings');
const search = document.getElementById('recordings-search');
if (table instanceof HTMLTableElement && search instanceof HTMLInputElement) showRecordings(table, search);
