/**
 * The status page's script, plain browser JavaScript in a string (no build step, nothing to bundle for
 * the browser, and a bundled Lambda serves it without reading files). It polls the page's JSON
 * endpoints and renders everything with textContent, never as HTML.
 */
export const UI_SCRIPT = `(function () {
  'use strict';
  var body = document.body;
  var REFRESH_MS = Number(body.getAttribute('data-refresh-ms')) || 3000;
  var params = new URLSearchParams(location.search);

  function $(id) { return document.getElementById(id); }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function cell(row, text, className) {
    var td = el('td', className, text);
    row.appendChild(td);
    return td;
  }

  function duration(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + 's';
    var m = Math.floor(s / 60);
    if (m < 60) return m + 'm' + (s % 60 ? ' ' + (s % 60) + 's' : '');
    var h = Math.floor(m / 60);
    return h + 'h' + (m % 60 ? ' ' + (m % 60) + 'm' : '');
  }

  function time(at) {
    var date = new Date(at);
    return date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
  }

  // What each creation stage means to someone waiting (ports.ts CreationStage).
  var STAGES = {
    queue: 'queued',
    launch: 'launching the browser',
    pull: 'pulling its image',
    driver: 'waiting for its driver',
    session: 'opening the session'
  };

  function commandsCell(row, count, last) {
    var td = cell(row, count);
    if (last) td.appendChild(el('span', 'meta', ' · ' + last));
    return td;
  }

  function sessionHref(key) { return 'ui?session=' + encodeURIComponent(key); }
  function sessionApi(key) { return 'ui/api/sessions/' + encodeURIComponent(key); }

  function colourTag(row, colour) {
    var td = cell(row, '');
    if (colour) td.appendChild(el('span', 'tag', colour));
    else td.textContent = '—';
  }

  function replaceRows(table, rows, columns, emptyText) {
    var tbody = table.tBodies[0];
    tbody.textContent = '';
    if (rows.length === 0) {
      var empty = el('tr', 'empty');
      var td = cell(empty, emptyText);
      td.colSpan = columns;
      tbody.appendChild(empty);
      return;
    }
    rows.forEach(function (row) { tbody.appendChild(row); });
  }

  function getJson(url) {
    return fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' }).then(function (response) {
      return response.json().then(function (data) {
        if (!response.ok) {
          var message = data && data.value && data.value.message;
          throw new Error(message || 'HTTP ' + response.status);
        }
        return data;
      });
    });
  }

  function showLoadError(error) { $('load-error').textContent = error ? 'Not updated: ' + error.message : ''; }

  function header(data) {
    $('version').textContent = data.version;
    $('uptime').textContent = data.uptime;
    $('viewer').textContent = data.viewer.user + (data.viewer.admin ? ' (admin)' : '');
  }

  /** Runs load now and again REFRESH_MS after each run ends, so a slow server is never asked twice at once. */
  function poll(load) {
    function tick() {
      load().then(function () { showLoadError(null); }, showLoadError).then(function () {
        setTimeout(tick, REFRESH_MS);
      });
    }
    tick();
  }

  function renderOverview(data) {
    header(data);
    replaceRows($('pools'), data.pools.map(function (pool) {
      var row = el('tr');
      row.setAttribute('data-pool', pool.name);
      cell(row, pool.name);
      cell(row, pool.kind + (pool.region ? ' (' + pool.region + ')' : ''));
      colourTag(row, pool.color);
      cell(row, pool.capacity, 'number');
      cell(row, pool.inUse, 'number');
      cell(row, pool.queued, 'number');
      cell(row, pool.warm, 'number');
      return row;
    }), 7, 'No pools configured');
    var starting = data.starting.map(function (start) {
      var row = el('tr');
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
      var stage = start.stage ? STAGES[start.stage] || start.stage : '';
      cell(row, 'starting' + (stage ? ': ' + stage + ' (' + duration(start.stageMs) + ')' : ''), 'state-starting')
        .setAttribute('data-stage', start.stage || '');
      return row;
    });
    replaceRows($('sessions'), starting.concat(data.sessions.map(function (session) {
      var row = el('tr');
      row.setAttribute('data-session', session.key);
      var link = el('a', 'key', session.key);
      link.href = sessionHref(session.key);
      cell(row, '').appendChild(link);
      cell(row, session.name || '', 'test-name');
      cell(row, session.user);
      cell(row, session.browserName + ' ' + session.browserVersion);
      cell(row, session.pool);
      colourTag(row, session.color);
      cell(row, duration(session.ageMs), 'number');
      cell(row, duration(session.idleMs), 'number');
      commandsCell(row, session.commands, session.lastCommand);
      // Local and hub browsers are not billed per session: no figure, not a zero.
      cell(row, session.cost ? '$' + session.cost.dollars.toFixed(4) : '—', 'number');
      cell(row, session.state, 'state-' + session.state);
      return row;
    })), 11, data.viewer.admin ? 'No sessions running' : 'You have no sessions running');
    replaceRows($('failures'), data.failures.map(function (failure) {
      var row = el('tr');
      cell(row, time(failure.at));
      cell(row, failure.user);
      cell(row, failure.session, 'key');
      cell(row, failure.reason);
      return row;
    }), 4, 'None lately');
  }

  function detail(list, name, value) {
    list.appendChild(el('dt', '', name));
    list.appendChild(el('dd', '', value));
  }

  function sessionPage(key) {
    var running = false;
    var ended = false;
    var shown = null;
    var screenTimer = null;
    var loading = false;
    var vnc = false;
    var vncFailed = false;
    $('session-key').textContent = key;

    function render(data) {
      header(data);
      var s = data.session;
      running = s.state === 'running';
      var list = $('details');
      list.textContent = '';
      detail(list, 'State', s.state + (s.endReason ? ' (' + s.endReason + ')' : ''));
      detail(list, 'User', s.user);
      detail(list, 'Browser', s.browserName + ' ' + s.browserVersion);
      detail(list, 'Pool', s.pool + (s.poolKind ? ' (' + s.poolKind + ')' : ''));
      detail(list, 'Colour', s.color || '—');
      detail(list, 'Created', time(s.createdAt));
      detail(list, 'Age', duration(s.ageMs));
      detail(list, 'Idle', duration(s.idleMs));
      detail(list, 'Idle timeout', duration(s.idleTimeoutMs));
      detail(list, 'Maximum age', duration(s.maxAgeMs));
      detail(list, 'Commands', s.commands + (s.lastCommand ? ' (last: ' + s.lastCommand + ')' : ''));
      if (s.cost) {
        detail(list, 'Estimated cost', '$' + s.cost.dollars.toFixed(4) + (s.cost.final ? '' : ' so far') +
          ' (' + duration(s.cost.billedSeconds * 1000) + ' billed, ' + s.cost.capacity + ')');
      }
      var events = $('events');
      events.textContent = '';
      s.events.forEach(function (event) {
        var item = el('li');
        item.appendChild(el('span', 'meta', time(event.at) + ' '));
        item.appendChild(document.createTextNode(event.what));
        events.appendChild(item);
      });
      $('end-session').disabled = !running || ended;
      if (running && s.vnc && !vnc && !vncFailed) showVnc(s.vnc.password);
      if (!running) {
        $('live-status').textContent = 'The session has ended: no live view.';
        $('screen').hidden = true;
        var frame = $('vnc');
        frame.hidden = true;
        frame.removeAttribute('src');
      }
    }

    /** The browser's noVNC page through gridgate, its WebSocket path ours (noVNC takes it from the root). */
    function showVnc(password) {
      vnc = true;
      var base = sessionApi(key) + '/vnc/';
      // Asked first, so a browser whose VNC port gridgate cannot reach falls back to screenshots.
      fetch(base + 'vnc.html', { cache: 'no-store' }).then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        if (running) openVnc(base, password);
      }).catch(function (error) {
        vnc = false;
        vncFailed = true;
        $('live-status').textContent = 'No VNC view (' + error.message + '): screenshots instead.';
        refreshScreen();
      });
    }

    function openVnc(base, password) {
      var query = new URLSearchParams({
        autoconnect: '1',
        reconnect: '1',
        resize: 'scale',
        view_only: '1',
        path: new URL(base + 'websockify', location.href).pathname.slice(1),
        password: password
      });
      var frame = $('vnc');
      frame.src = base + 'vnc.html?' + query.toString();
      frame.hidden = false;
      $('screen').hidden = true;
      $('screen-note').hidden = true;
      $('vnc-note').hidden = false;
      $('live-status').textContent = 'Live VNC view.';
    }

    function refreshScreen() {
      screenTimer = null;
      if (!running || vnc || loading || document.visibilityState !== 'visible') return;
      loading = true;
      fetch(sessionApi(key) + '/screenshot', { cache: 'no-store' }).then(function (response) {
        if (!response.ok) {
          return response.json().then(function (data) {
            throw new Error((data && data.value && data.value.message) || 'HTTP ' + response.status);
          });
        }
        return response.blob().then(function (blob) {
          var url = URL.createObjectURL(blob);
          var screen = $('screen');
          screen.onload = function () {
            if (shown) URL.revokeObjectURL(shown);
            shown = url;
          };
          screen.src = url;
          $('live-status').textContent = 'Screenshot taken ' + new Date().toLocaleTimeString() + '.';
        });
      }).catch(function (error) {
        if (running) $('live-status').textContent = 'No screenshot: ' + error.message;
      }).then(function () {
        loading = false;
        // Only while someone can see it: a hidden tab costs the browser nothing.
        if (running && !vnc && screenTimer === null && document.visibilityState === 'visible') {
          screenTimer = setTimeout(refreshScreen, REFRESH_MS);
        }
      });
    }

    document.addEventListener('visibilitychange', function () {
      if (document.visibilityState === 'visible') {
        if (screenTimer === null) refreshScreen();
      } else if (screenTimer !== null) {
        clearTimeout(screenTimer);
        screenTimer = null;
      }
    });

    $('end-session').addEventListener('click', function () {
      if (!window.confirm('End session ' + key + '? Its browser stops at once.')) return;
      var button = $('end-session');
      button.disabled = true;
      $('end-status').textContent = 'Ending…';
      fetch(sessionApi(key), { method: 'DELETE', headers: { accept: 'application/json' } }).then(function (response) {
        return response.json().then(function (data) {
          if (!response.ok) throw new Error((data && data.value && data.value.message) || 'HTTP ' + response.status);
          ended = true;
          running = false;
          $('end-status').textContent = 'Session ended.';
          return getJson(sessionApi(key)).then(render);
        });
      }).catch(function (error) {
        button.disabled = !running;
        $('end-status').textContent = 'Could not end it: ' + error.message;
      });
    });

    var first = true;
    poll(function () {
      return getJson(sessionApi(key)).then(function (data) {
        render(data);
        if (first && running) refreshScreen();
        first = false;
      });
    });
  }

  if (body.getAttribute('data-view') === 'session') sessionPage(params.get('session') || '');
  else poll(function () { return getJson('ui/api/overview').then(renderOverview); });
})();
`;
