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
  function link(href, text) {
    const a = el("a", null, text);
    a.href = href;
    return a;
  }
  function resultText(facts) {
    const { result } = facts;
    if (!result) return "unknown";
    return result.reason ? \`\${result.status}: \${result.reason}\` : result.status;
  }
  var resultClass = (facts) => \`result-\${facts.result?.status ?? "unknown"}\`;
  function groupingText(facts) {
    const labels = Object.entries(facts.labels ?? {}).map(([key, value]) => value ? \`\${key}=\${value}\` : key);
    return [
      facts.build ? \`build \${facts.build}\` : "",
      facts.project ? \`project \${facts.project}\` : "",
      labels.join(" ")
    ].filter(Boolean).join(" · ");
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
  function logLinks(recording) {
    const links = [
      [recording.logUrl, "driver"],
      [recording.consoleUrl, "console"],
      [recording.harUrl, "HAR"]
    ];
    const given = links.filter((pair) => pair[0] !== void 0);
    if (given.length === 0) return null;
    const span = el("span", "logs");
    given.forEach(([href, text], at) => {
      if (at > 0) span.appendChild(document.createTextNode(" · "));
      span.appendChild(link(href, text));
    });
    return span;
  }
  function row(recording) {
    const tr = el("tr");
    tr.setAttribute("data-key", recording.key);
    cell(tr, new Date(recording.endedAt || recording.createdAt).toLocaleString());
    const name = el("span", null, recording.name || "(no name)");
    name.appendChild(el("span", "meta key", \` \${recording.key}\`));
    const grouping = groupingText(recording);
    if (grouping) name.appendChild(el("div", "meta grouping", grouping));
    cell(tr, name);
    cell(tr, recording.user);
    cell(tr, \`\${recording.browserName} \${recording.browserVersion}\`);
    cell(tr, recording.endReason || "");
    const result = el("span", resultClass(recording), resultText(recording));
    cell(tr, result);
    let video = null;
    if (recording.videoUrl) {
      video = el("video", "recording");
      video.controls = true;
      video.preload = "metadata";
      video.src = recording.videoUrl;
    }
    cell(tr, video ?? (recording.videoNotKept ? el("span", "meta", recording.videoNotKept) : null));
    cell(tr, logLinks(recording));
    let shot = null;
    if (recording.screenshotUrl) {
      shot = el("img", "last-frame");
      shot.alt = "The last thing the browser showed";
      shot.src = recording.screenshotUrl;
    }
    cell(tr, shot);
    return tr;
  }
  function showRecordings(table2, filters2) {
    const { search } = filters2;
    let shown = "";
    const playing = () => Array.from(table2.querySelectorAll("video")).some((video) => !video.paused);
    function load(force) {
      if (!force && playing()) return;
      const params = new URLSearchParams({
        q: search.value.trim(),
        result: filters2.result.value,
        build: filters2.build.value.trim(),
        label: filters2.label.value.trim()
      });
      const query = params.toString();
      fetch(\`ui/api/recordings?\${query}\`, {
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
            query === new URLSearchParams({ q: "", result: "", build: "", label: "" }).toString() ? "No ended session has a video or a log." : "No ended session matches."
          );
          td.colSpan = 9;
          empty.appendChild(td);
          tbody.appendChild(empty);
        }
        for (const recording of recordings) tbody.appendChild(row(recording));
      }).catch(() => {
      });
    }
    let typing;
    for (const input of [search, filters2.build, filters2.label]) {
      input.addEventListener("input", () => {
        clearTimeout(typing);
        typing = setTimeout(() => load(true), 250);
      });
    }
    filters2.result.addEventListener("change", () => load(true));
    load(true);
    setInterval(() => load(false), REFRESH_MS);
  }
  var table = document.getElementById("recordings");
  var filters = {
    search: document.getElementById("recordings-search"),
    result: document.getElementById("recordings-result"),
    build: document.getElementById("recordings-build"),
    label: document.getElementById("recordings-label")
  };
  if (table instanceof HTMLTableElement && filters.search instanceof HTMLInputElement && filters.result instanceof HTMLSelectElement && filters.build instanceof HTMLInputElement && filters.label instanceof HTMLInputElement) {
    showRecordings(table, filters);
  }
})();
`;
