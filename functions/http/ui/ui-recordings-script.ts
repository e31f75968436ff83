/**
 * The status page's script for ended sessions with recordings (ui/recordings.js), compiled from page-scripts/recordings-list.ts by
 * `npm run page-scripts` (scripts/page-scripts.mjs). Do not edit: edit the source and run that.
 */
export const UI_RECORDINGS_SCRIPT = `"use strict";
(() => {
  // functions/http/ui/page-scripts/dom.ts
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== void 0 && text !== null) node.textContent = String(text);
    return node;
  }

  // functions/http/ui/page-scripts/recordings-list.ts
  var REFRESH_MS = 1e4;
  function cell(row2, child) {
    const td = el("td");
    if (typeof child === "string") td.textContent = child;
    else if (child) td.appendChild(child);
    else td.textContent = "—";
    row2.appendChild(td);
  }
  function link(href, text) {
    const a = el("a", null, text);
    a.href = href;
    return a;
  }
  function row(recording) {
    const tr = el("tr");
    tr.setAttribute("data-key", recording.key);
    cell(tr, new Date(recording.endedAt || recording.createdAt).toLocaleString());
    const name = el("span", null, recording.name || "(no name)");
    name.appendChild(el("span", "meta key", \` \${recording.key}\`));
    cell(tr, name);
    cell(tr, recording.user);
    cell(tr, \`\${recording.browserName} \${recording.browserVersion}\`);
    cell(tr, recording.endReason || "");
    let video = null;
    if (recording.videoUrl) {
      video = el("video", "recording");
      video.controls = true;
      video.preload = "metadata";
      video.src = recording.videoUrl;
    }
    cell(tr, video);
    cell(tr, recording.logUrl ? link(recording.logUrl, "log") : null);
    let shot = null;
    if (recording.screenshotUrl) {
      shot = el("img", "last-frame");
      shot.alt = "The last thing the browser showed";
      shot.src = recording.screenshotUrl;
    }
    cell(tr, shot);
    return tr;
  }
  function showRecordings(table2, search2) {
    let shown = "";
    const playing = () => Array.from(table2.querySelectorAll("video")).some((video) => !video.paused);
    function load(force) {
      if (!force && playing()) return;
      const query = search2.value.trim();
      fetch(\`ui/api/recordings?q=\${encodeURIComponent(query)}\`, {
        headers: { accept: "application/json" },
        cache: "no-store"
      }).then((response) => response.json()).then((data) => {
        const recordings = data.recordings || [];
        const keys = \`\${query}|\${recordings.map((r) => r.key).join(",")}\`;
        if (keys === shown) return;
        shown = keys;
        const tbody = table2.tBodies[0];
        if (!tbody) return;
        tbody.textContent = "";
        if (recordings.length === 0) {
          const empty = el("tr", "empty");
          const td = el(
            "td",
            null,
            query ? "No ended session matches." : "No ended session has a video or a log."
          );
          td.colSpan = 8;
          empty.appendChild(td);
          tbody.appendChild(empty);
        }
        for (const recording of recordings) tbody.appendChild(row(recording));
      }).catch(() => {
      });
    }
    let typing;
    search2.addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => load(true), 250);
    });
    load(true);
    setInterval(() => load(false), REFRESH_MS);
  }
  var table = document.getElementById("recordings");
  var search = document.getElementById("recordings-search");
  if (table instanceof HTMLTableElement && search instanceof HTMLInputElement) showRecordings(table, search);
})();
`;
