'use strict';
/**
 * What Playwright starts as "the browser" of a local Playwright session: instead of a Chromium of its own,
 * this bridges the DevTools pipe Playwright speaks to a launched browser (fd 3 in, fd 4 out, each message
 * ending in a NUL byte, as Chromium's --remote-debugging-pipe) to the session's own Chromium, through
 * gridgate's checked DevTools socket (a Unix socket in the session's folder, given in the environment).
 * Every argument Playwright passes a Chromium (profile folder, switches) is ignored: the session's browser
 * was started by gridgate's launcher, within the session's bounds. Plain CommonJS: run by node as is.
 */
const { Socket } = require('node:net');

const socketPath = process.env.GRIDGATE_DEVTOOLS_SOCKET;
const WebSocket = require(process.env.GRIDGATE_WS_MODULE);

// Node's extra stdio "pipes" are socket pairs: read and written as sockets.
const fromPlaywright = new Socket({ fd: 3, readable: true, writable: false });
const toPlaywright = new Socket({ fd: 4, readable: false, writable: true });
const browser = new WebSocket(`ws+unix:${socketPath}:/`, { perMessageDeflate: false, maxPayload: 0 });
const pending = [];
let buffered = Buffer.alloc(0);

browser.on('open', () => {
  for (const message of pending.splice(0)) browser.send(message);
});
browser.on('message', (data) => {
  toPlaywright.write(Buffer.concat([Buffer.from(data), Buffer.from([0])]));
});
// The session's browser gone, or Playwright gone: this "browser" is over too.
browser.on('close', () => process.exit(0));
browser.on('error', () => process.exit(1));
fromPlaywright.on('data', (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  for (let end = buffered.indexOf(0); end !== -1; end = buffered.indexOf(0)) {
    const message = buffered.subarray(0, end).toString('utf8');
    buffered = buffered.subarray(end + 1);
    if (browser.readyState === WebSocket.OPEN) browser.send(message);
    else pending.push(message);
  }
});
fromPlaywright.on('end', () => process.exit(0));
fromPlaywright.on('error', () => process.exit(1));
