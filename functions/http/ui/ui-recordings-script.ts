/**
 * The status page's script for ended sessions with recordings (served as ui/recordings.js beside
 * ui-script.ts, in the same plain-JavaScript-in-a-string way): lists them, searches them by test name, user
 * or session, and plays each video in the page. Everything is rendered with textContent, never as HTML; the
 * list is refreshed only while no video plays, so watching one is never interrupted.
 */
export const UI_RECORDINGS_SCRIPT = `(function () {
  'use strict';
  var table = document.getElementById('recordings');
  var search = document.getElementById('recordings-search');
  if (!table || !search) return;
  var REFRESH_MS = 10000;
  var shown = '';

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function cell(row, child) {
    var td = el('td');
    if (typeof child === 'string') td.textContent = child;
    else if (child) td.appendChild(child);
    else td.textContent = '—';
    row.appendChild(td);
  }

  function link(href, text) {
    var a = el('a', null, text);
    a.href = href;
    return a;
  }

  function row(recording) {
    var tr = el('tr');
    tr.setAttribute('data-key', recording.key);
    cell(tr, new Date(recording.endedAt || recording.createdAt).toLocaleString());
    var name = el('span', null, recording.name || '(no name)');
    name.appendChild(el('span', 'meta key', ' ' + recording.key));
    cell(tr, name);
    cell(tr, recording.user);
    cell(tr, recording.browserName + ' ' + recording.browserVersion);
    cell(tr, recording.endReason || '');
    var video = null;
    if (recording.videoUrl) {
      video = el('video', 'recording');
      video.controls = true;
      video.preload = 'metadata';
      video.src = recording.videoUrl;
    }
    cell(tr, video);
    cell(tr, recording.logUrl ? link(recording.logUrl, 'log') : null);
    var shot = null;
    if (recording.screenshotUrl) {
      shot = el('img', 'last-frame');
      shot.alt = 'The last thing the browser showed';
      shot.src = recording.screenshotUrl;
    }
    cell(tr, shot);
    return tr;
  }

  function playing() {
    return Array.prototype.some.call(table.querySelectorAll('video'), function (v) { return !v.paused; });
  }

  function load(force) {
    if (!force && playing()) return;
    var query = search.value.trim();
    fetch('ui/api/recordings?q=' + encodeURIComponent(query), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var recordings = data.recordings || [];
        var keys = query + '|' + recordings.map(function (r) { return r.key; }).join(',');
        if (keys === shown) return;
        shown = keys;
        var tbody = table.tBodies[0];
        tbody.textContent = '';
        if (recordings.length === 0) {
          var empty = el('tr', 'empty');
          var td = el('td', null, query ? 'No ended session matches.' : 'No ended session has a video or a log.');
          td.colSpan = 8;
          empty.appendChild(td);
          tbody.appendChild(empty);
        }
        recordings.forEach(function (recording) { tbody.appendChild(row(recording)); });
      })
      .catch(function () {});
  }

  var typing;
  search.addEventListener('input', function () {
    clearTimeout(typing);
    typing = setTimeout(function () { load(true); }, 250);
  });
  load(true);
  setInterval(function () { load(false); }, REFRESH_MS);
})();
`;
