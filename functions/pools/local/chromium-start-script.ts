/**
 * The executable chromedriver is told is Chromium, written in the browser's own folder: it exports what the
 * pool's start adds to the environment and execs the binary with the start's flags before chromedriver's
 * arguments, which is what Debian's wrapper ends with (chromium-wrapper.ts), without the wrapper's programs.
 * For a browser in a namespace of its own it first gives the browser's user what chromedriver (root) wrote for
 * Chromium (the profile, unpacked extensions in its home), then becomes it (browser-user.ts).
 */
import { asBrowserUser } from './browser-user';
import type { ChromiumStart } from './chromium-wrapper';

/** The browser's own user, and the folders chromedriver made that it must own. */
export interface BrowserUser {
  id: number;
  owned: readonly string[];
}

export function chromiumStartScript(start: ChromiumStart, user?: BrowserUser): string {
  const [command, args] = user
    ? asBrowserUser(user.id, start.binary, start.flags)
    : [start.binary, [...start.flags]];
  return [
    '#!/bin/sh',
    ...(user ? [`chown -R -h ${user.id}:${user.id} -- ${user.owned.map(quote).join(' ')} || exit 1`] : []),
    ...Object.entries(start.env).map(([name, value]) => `export ${quote(`${name}=${value}`)}`),
    `exec ${[command, ...args].map(quote).join(' ')} "$@"`,
    '',
  ].join('\n');
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
