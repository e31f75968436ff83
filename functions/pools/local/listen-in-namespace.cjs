'use strict';
/**
 * Run by nsenter in a session's network namespace: opens a TCP listener there on the address given (port
 * chosen by the system) and hands it to the gridgate process that started it over Node's IPC channel, then
 * exits. The listener is gridgate's from then on: nothing of this keeps running. Plain CommonJS: run by node
 * as is.
 */
const { createServer } = require('node:net');

const [, , host] = process.argv;
const server = createServer();
server.once('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
server.listen(0, host, () => {
  process.send({ port: server.address().port }, server, () => process.exit(0));
});
