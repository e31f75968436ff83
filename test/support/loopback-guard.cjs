/**
 * Preloaded (node --require) into a process under test: every outgoing TCP connection and every name
 * lookup it makes from JavaScript is appended as a JSON line to LOOPBACK_GUARD_LOG, and one to anything
 * but a loopback address is refused before a packet leaves. The test reads the log to show the process
 * talked to nothing but 127.0.0.0/8, ::1 and localhost.
 */
const dns = require('node:dns');
const fs = require('node:fs');
const net = require('node:net');

const log = process.env.LOOPBACK_GUARD_LOG;
if (!log) throw new Error('loopback-guard: LOOPBACK_GUARD_LOG is not set');

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;
const record = (entry) => fs.appendFileSync(log, `${JSON.stringify(entry)}\n`);

/** The destination of Socket#connect, in any of the shapes Node accepts (and its own normalized one). */
function destination(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object')
    return { host: first.host ?? 'localhost', port: first.port, path: first.path };
  if (typeof first === 'number' || /^\d+$/.test(String(first))) {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(first) };
  }
  return { path: String(first) };
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const to = destination(args);
  // A Unix socket's path is a string; TLS and HTTP agents pass `path: null` beside a host, still a TCP connection.
  const allowed = typeof to.path === 'string' || LOOPBACK.test(String(to.host));
  record({ kind: 'connect', ...to, allowed });
  if (!allowed) {
    process.nextTick(() =>
      this.destroy(new Error(`loopback-guard refused a connection to ${to.host}:${to.port}`)),
    );
    return this;
  }
  return connect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, ...rest) {
  record({ kind: 'lookup', host: hostname, allowed: LOOPBACK.test(String(hostname)) });
  return lookup.call(this, hostname, ...rest);
};
