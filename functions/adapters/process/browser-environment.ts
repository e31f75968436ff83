/**
 * The environment of the programs gridgate starts for a session on its own machine (chromedriver, Chromium,
 * the screencast's ffmpeg, a Playwright server serving the session), built from scratch (DESIGN invariant 7). They run what a session sends (its
 * pages, its launch options, the frames of its screen), and a page can read its browser's environment
 * (`file:///proc/self/environ`), so they get only what a browser needs: never GRIDGATE_SECRET (the key that
 * signs session IDs), cloud credentials, tokens or the rest of gridgate's own environment.
 */

/** Set in the environment of every chromedriver (and so Chromium) gridgate starts; its value is gridgate's pid. */
export const LAUNCHED_BY_ENV = 'GRIDGATE_LAUNCHED_BY';

// What Debian's login shells set: the browser finds its launcher script's programs (sh, uname, grep).
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Passed on where set: the locale and time zone pages see, the X display of a headed browser (and its
 * cookie), and fontconfig's settings, which decide how text renders (and so screenshots).
 */
const PASSED_ON = [
  /^LANG$/,
  /^LANGUAGE$/,
  /^LC_[A-Z_]+$/,
  /^TZ$/,
  /^DISPLAY$/,
  /^XAUTHORITY$/,
  /^FONTCONFIG_[A-Z_]+$/,
];

/**
 * PATH, the passed-on variables, the launched-by mark (the orphan sweeps recognise gridgate's browsers by it),
 * and, with `scratchDir`, HOME and TMPDIR in the browser's own folder, which goes when the browser stops:
 * whatever Chromium keeps in HOME (~/.pki, ~/.cache, ~/Downloads) is the session's and leaves with it.
 * CHROME_LOG_FILE is never passed on: it would name the file Chromium's log (which pages write to) appends to.
 */
export function browserEnvironment(
  scratchDir: string | undefined,
  inherited: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { PATH: inherited.PATH || DEFAULT_PATH };
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && PASSED_ON.some((pattern) => pattern.test(name))) environment[name] = value;
  }
  environment[LAUNCHED_BY_ENV] = String(process.pid);
  if (scratchDir !== undefined) {
    environment.HOME = scratchDir;
    environment.TMPDIR = scratchDir;
  }
  return environment;
}
