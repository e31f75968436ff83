/**
 * The status page's script (ui/app.js), compiled from page-scripts/status-page.ts by
 * `npm run page-scripts` (scripts/page-scripts.mjs). Do not edit: edit the source and run that.
 */
export const UI_SCRIPT = `"use strict";
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
  function byId(id, type) {
    const node = document.getElementById(id);
    if (!(node instanceof type)) throw new Error(\`the page has no \${type.name} #\${id}\`);
    return node;
  }
  function failureMessage(data, status) {
    const message = data?.value?.message;
    return typeof message === "string" && message ? message : \`HTTP \${status}\`;
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

  // functions/http/ui/page-scripts/status-page.ts
  var PROTOCOLS = { webdriver: "WebDriver", cdp: "CDP", playwright: "Playwright" };
  var body = document.body;
  var REFRESH_MS = Number(body.getAttribute("data-refresh-ms")) || 3e3;
  var params = new URLSearchParams(location.search);
  var span = (id) => byId(id, HTMLElement);
  var table = (id) => byId(id, HTMLTableElement);
  function cell(row, text, className) {
    const td = el("td", className, text);
    row.appendChild(td);
    return td;
  }
  function duration(ms) {
    const s = Math.max(0, Math.round(ms / 1e3));
    if (s < 60) return \`\${s}s\`;
    const m = Math.floor(s / 60);
    if (m < 60) return \`\${m}m\${s % 60 ? \` \${s % 60}s\` : ""}\`;
    const h = Math.floor(m / 60);
    return \`\${h}h\${m % 60 ? \` \${m % 60}m\` : ""}\`;
  }
  function time(at) {
    return new Date(at).toLocaleString(void 0, { dateStyle: "short", timeStyle: "medium" });
  }
  var STAGES = {
    queue: "queued",
    launch: "launching the browser",
    pull: "pulling its image",
    driver: "waiting for its driver",
    session: "opening the session"
  };
  function commandsCell(row, count, last) {
    const td = cell(row, count);
    if (last) td.appendChild(el("span", "meta", \` · \${last}\`));
    return td;
  }
  var sessionHref = (key) => \`ui?session=\${encodeURIComponent(key)}\`;
  var sessionApi = (key) => \`ui/api/sessions/\${encodeURIComponent(key)}\`;
  function colourTag(row, colour) {
    const td = cell(row, "");
    if (colour) td.appendChild(el("span", "tag", colour));
    else td.textContent = "—";
  }
  function replaceRows(into, rows, columns, emptyText) {
    const tbody = into.tBodies[0];
    if (!tbody) return;
    tbody.textContent = "";
    if (rows.length === 0) {
      const empty = el("tr", "empty");
      cell(empty, emptyText).colSpan = columns;
      tbody.appendChild(empty);
      return;
    }
    for (const row of rows) tbody.appendChild(row);
  }
  function getJson(url) {
    return fetch(url, { headers: { accept: "application/json" }, cache: "no-store" }).then(
      (response) => response.json().then((data) => {
        if (!response.ok) throw new Error(failureMessage(data, response.status));
        return data;
      })
    );
  }
  function showLoadError(error) {
    span("load-error").textContent = error instanceof Error ? \`Not updated: \${error.message}\` : "";
  }
  function header(data) {
    span("version").textContent = data.version;
    span("uptime").textContent = data.uptime;
    span("viewer").textContent = data.viewer.user + (data.viewer.admin ? " (admin)" : "");
  }
  function poll(load) {
    const next = () => {
      setTimeout(tick, REFRESH_MS);
    };
    function tick() {
      load().then(() => showLoadError(null), showLoadError).then(next, next);
    }
    tick();
  }
  function renderOverview(data) {
    header(data);
    const pools = data.pools.map((pool) => {
      const row = el("tr");
      row.setAttribute("data-pool", pool.name);
      cell(row, pool.name);
      cell(row, pool.kind + (pool.region ? \` (\${pool.region})\` : ""));
      colourTag(row, pool.color);
      cell(row, pool.capacity, "number");
      cell(row, pool.inUse, "number");
      cell(row, pool.queued, "number");
      cell(row, pool.warm, "number");
      return row;
    });
    replaceRows(table("pools"), pools, 7, "No pools configured");
    const starting = data.starting.map((start) => {
      const row = el("tr");
      row.setAttribute("data-starting", start.key);
      cell(row, start.key, "key");
      cell(row, "");
      cell(row, start.user);
      cell(row, "");
      cell(row, start.pool);
      cell(row, "");
      cell(row, duration(start.ageMs), "number");
      cell(row, "", "number");
      cell(row, "");
      cell(row, "", "number");
      const stage = start.stage ? \`: \${STAGES[start.stage]} (\${duration(start.stageMs ?? 0)})\` : "";
      cell(row, \`starting\${stage}\`, "state-starting").setAttribute("data-stage", start.stage ?? "");
      cell(row, "");
      return row;
    });
    const sessions = data.sessions.map((session) => {
      const row = el("tr");
      row.setAttribute("data-session", session.key);
      const link2 = el("a", "key", session.key);
      link2.href = sessionHref(session.key);
      cell(row, "").appendChild(link2);
      const test = cell(row, session.name ?? "", "test-name");
      const grouping = groupingText(session);
      if (grouping) test.appendChild(el("div", "meta grouping", grouping));
      cell(row, session.user);
      const browser = cell(row, \`\${session.browserName} \${session.browserVersion}\`);
      if (session.protocol !== "webdriver")
        browser.appendChild(el("div", "meta protocol", PROTOCOLS[session.protocol]));
      cell(row, session.pool);
      colourTag(row, session.color);
      cell(row, duration(session.ageMs), "number");
      cell(row, duration(session.idleMs), "number");
      commandsCell(row, session.commands, session.lastCommand);
      cell(row, session.cost ? \`$\${session.cost.dollars.toFixed(4)}\` : "—", "number");
      cell(row, session.state, \`state-\${session.state}\`);
      cell(row, resultText(session), resultClass(session));
      return row;
    });
    const none = data.viewer.admin ? "No sessions running" : "You have no sessions running";
    replaceRows(table("sessions"), starting.concat(sessions), 12, none);
    const failures = data.failures.map((failure) => {
      const row = el("tr");
      cell(row, time(failure.at));
      cell(row, failure.user);
      cell(row, failure.session, "key");
      cell(row, failure.reason);
      return row;
    });
    replaceRows(table("failures"), failures, 4, "None lately");
  }
  function detail(list, name, value) {
    list.appendChild(el("dt", "", name));
    list.appendChild(el("dd", "", value));
  }
  function recordingLinks(recordings) {
    const links = [
      [recordings.videoUrl, "video"],
      [recordings.logUrl, "driver log"],
      [recordings.consoleUrl, "console"],
      [recordings.harUrl, "HAR"],
      [recordings.screenshotUrl, "last screen"]
    ];
    const parts = links.flatMap(([href, text]) => href ? [link(href, text)] : []);
    if (recordings.videoNotKept) parts.push(el("span", "meta", \`video \${recordings.videoNotKept}\`));
    const shown = el("span", "recordings");
    parts.forEach((part, at) => {
      if (at > 0) shown.appendChild(document.createTextNode(" · "));
      shown.appendChild(part);
    });
    return shown;
  }
  function sessionPage(key) {
    let running = false;
    let ended = false;
    let shown = null;
    let screenTimer = null;
    let loading = false;
    let vnc = false;
    let vncFailed = false;
    span("session-key").textContent = key;
    const status = (text) => {
      span("live-status").textContent = text;
    };
    function render(data) {
      header(data);
      const s = data.session;
      running = s.state === "running";
      const list = byId("details", HTMLDListElement);
      list.textContent = "";
      detail(list, "State", s.state + (s.endReason ? \` (\${s.endReason})\` : ""));
      detail(list, "Test", s.name || "(no name)");
      detail(list, "Result", resultText(s));
      detail(list, "Build", groupingText(s) || "—");
      detail(list, "User", s.user);
      detail(list, "Browser", \`\${s.browserName} \${s.browserVersion}\`);
      detail(list, "Protocol", PROTOCOLS[s.protocol]);
      detail(list, "Pool", s.pool + (s.poolKind ? \` (\${s.poolKind})\` : ""));
      detail(list, "Colour", s.color || "—");
      detail(list, "Created", time(s.createdAt));
      detail(list, "Age", duration(s.ageMs));
      detail(list, "Idle", duration(s.idleMs));
      detail(list, "Idle timeout", duration(s.idleTimeoutMs));
      detail(list, "Maximum age", duration(s.maxAgeMs));
      detail(list, "Commands", s.commands + (s.lastCommand ? \` (last: \${s.lastCommand})\` : ""));
      if (s.cost) {
        const billed = \`\${duration(s.cost.billedSeconds * 1e3)} billed, \${s.cost.capacity}\`;
        detail(
          list,
          "Estimated cost",
          \`$\${s.cost.dollars.toFixed(4)}\${s.cost.final ? "" : " so far"} (\${billed})\`
        );
      }
      if (s.recordings) {
        list.appendChild(el("dt", "", "Recordings"));
        list.appendChild(el("dd")).appendChild(recordingLinks(s.recordings));
      }
      const events = byId("events", HTMLOListElement);
      events.textContent = "";
      for (const event of s.events) {
        const item = el("li");
        item.appendChild(el("span", "meta", \`\${time(event.at)} \`));
        item.appendChild(document.createTextNode(event.what));
        events.appendChild(item);
      }
      byId("end-session", HTMLButtonElement).disabled = !running || ended;
      if (running && s.vnc && !vnc && !vncFailed) showVnc(s.vnc.password);
      if (!running) {
        status("The session has ended: no live view.");
        byId("screen", HTMLImageElement).hidden = true;
        span("screen-note").hidden = true;
        const frame = byId("vnc", HTMLIFrameElement);
        frame.hidden = true;
        frame.removeAttribute("src");
      }
    }
    function showVnc(password) {
      vnc = true;
      const base = \`\${sessionApi(key)}/vnc/\`;
      fetch(\`\${base}vnc.html\`, { cache: "no-store" }).then((response) => {
        if (!response.ok) throw new Error(\`HTTP \${response.status}\`);
        if (running) openVnc(base, password);
      }).catch((error) => {
        vnc = false;
        vncFailed = true;
        status(\`No VNC view (\${error.message}): screenshots instead.\`);
        refreshScreen();
      });
    }
    function openVnc(base, password) {
      const query = new URLSearchParams({
        autoconnect: "1",
        reconnect: "1",
        resize: "scale",
        view_only: "1",
        path: new URL(\`\${base}websockify\`, location.href).pathname.slice(1),
        password
      });
      const frame = byId("vnc", HTMLIFrameElement);
      frame.src = \`\${base}vnc.html?\${query.toString()}\`;
      frame.hidden = false;
      byId("screen", HTMLImageElement).hidden = true;
      span("screen-note").hidden = true;
      span("vnc-note").hidden = false;
      status("Live VNC view.");
    }
    function refreshScreen() {
      screenTimer = null;
      if (!running || vnc || loading || document.visibilityState !== "visible") return;
      loading = true;
      const done = () => {
        loading = false;
        if (running && !vnc && screenTimer === null && document.visibilityState === "visible") {
          screenTimer = setTimeout(refreshScreen, REFRESH_MS);
        }
      };
      fetch(\`\${sessionApi(key)}/screenshot\`, { cache: "no-store" }).then((response) => {
        if (!response.ok) {
          return response.json().then((data) => {
            throw new Error(failureMessage(data, response.status));
          });
        }
        return response.blob().then((blob) => {
          const url = URL.createObjectURL(blob);
          const screen = byId("screen", HTMLImageElement);
          screen.onload = () => {
            if (shown) URL.revokeObjectURL(shown);
            shown = url;
          };
          screen.src = url;
          status(\`Screenshot taken \${(/* @__PURE__ */ new Date()).toLocaleTimeString()}.\`);
        });
      }).catch((error) => {
        if (running) status(\`No screenshot: \${error.message}\`);
      }).then(done, done);
    }
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") {
        if (screenTimer === null) refreshScreen();
      } else if (screenTimer !== null) {
        clearTimeout(screenTimer);
        screenTimer = null;
      }
    });
    const button = byId("end-session", HTMLButtonElement);
    button.addEventListener("click", () => {
      if (!window.confirm(\`End session \${key}? Its browser stops at once.\`)) return;
      button.disabled = true;
      const endStatus = span("end-status");
      endStatus.textContent = "Ending…";
      fetch(sessionApi(key), { method: "DELETE", headers: { accept: "application/json" } }).then(
        (response) => response.json().then((data) => {
          if (!response.ok) throw new Error(failureMessage(data, response.status));
          ended = true;
          running = false;
          endStatus.textContent = "Session ended.";
          return getJson(sessionApi(key)).then(render);
        })
      ).catch((error) => {
        button.disabled = !running;
        endStatus.textContent = \`Could not end it: \${error.message}\`;
      });
    });
    let first = true;
    poll(
      () => getJson(sessionApi(key)).then((data) => {
        render(data);
        if (first && running) refreshScreen();
        first = false;
      })
    );
  }
  if (body.getAttribute("data-view") === "session") sessionPage(params.get("session") ?? "");
  else poll(() => getJson("ui/api/overview").then(renderOverview));
})();
`;
