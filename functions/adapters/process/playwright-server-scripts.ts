/**
 * The scripts a Playwright server for a socket session runs as (servers/node/playwright/): the server itself and
 * the bridge it starts as its "browser". By these names, with gridgate's marks, the start-up sweep
 * (pools/local/orphan-sweep.ts) finds the servers a killed grid left running.
 */
export const ATTACH_SERVER_SCRIPT = 'attach-server.cjs';
export const DEVTOOLS_PIPE_SCRIPT = 'devtools-pipe.cjs';
export const PLAYWRIGHT_SERVER_SCRIPTS = [ATTACH_SERVER_SCRIPT, DEVTOOLS_PIPE_SCRIPT] as const;
