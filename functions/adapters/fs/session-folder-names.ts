/**
 * How the folders gridgate makes on this machine for a session are named: gridgate-session-<pid>-…, the pid
 * the owning gridgate process's, so the start-up sweep (pools/local/orphan-sweep.ts) removes what a gridgate
 * that died left behind. A local session's own folder (pools/local/session-directories.ts), a recording's
 * scratch folder and a Playwright server's folder for a browser elsewhere are all named so.
 */
export const SESSION_DIRECTORY_PREFIX = 'gridgate-session-';
