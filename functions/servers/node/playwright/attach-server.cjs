'use strict';
/**
 * A Playwright server for one local Playwright session, run by the playwright-core of the client's own
 * major.minor (its path is the first argument): Playwright's public `launchServer`, whose "browser" is
 * devtools-pipe.cjs bridging to the session's Chromium, so the server serves exactly that browser (a client
 * cannot launch another: a launched server's connections only get the browser it launched). Prints
 * {"wsEndpoint"} once listening; exits when its parent closes its stdin. Plain CommonJS: run by node as is.
 */
const { join } = require('node:path');

const [, , playwrightCore, host] = process.argv;

async function main() {
  const { chromium } = require(playwrightCore);
  const server = await chromium.launchServer({
    executablePath: process.execPath,
    ignoreDefaultArgs: true,
    args: [join(__dirname, 'devtools-pipe.cjs')],
    env: {
      GRIDGATE_DEVTOOLS_SOCKET: process.env.GRIDGATE_DEVTOOLS_SOCKET,
      GRIDGATE_WS_MODULE: process.env.GRIDGATE_WS_MODULE,
    },
    host,
    port: 0,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  process.stdout.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint() })}\n`);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
