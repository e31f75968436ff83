/**
 * The executable chromedriver is told is Chromium, written in the browser's own folder: it exports what the
 * pool's start adds to the environment and execs the binary with the start's flags before chromedriver's
 * arguments, which is what Debian's wrapper ends with (chromium-wrapper.ts), without the wrapper's programs.
 * For a browser in a namespace of its own it first gives the browser's user what chromedriver (root) wrote for
 * Chromium (the profile, unpacked extensions in its home), then becomes it (browser-user.ts).
 * Last comes the page Chromium opens first, `data:,`, which chromedriver adds only to a profile it makes itself
 * or to a BiDi session (`webSocketUrl`): told gridgate's profile, it adds none to a classic session, and Chromium
 * opens its New Tab page (chrome://new-tab-page-third-party, a WebUI page), which costs every session's start
 * 0.2–0.4 s of CPU that a bare chromedriver's does not pay (bench/README.md) and shows the client another first
 * URL than a bare chromedriver's. Added only when chromedriver's last argument is a switch: a second page beside
 * the one it gave a BiDi session makes it report "Chrome instance exited".
 */
import { asBrowserUser } from './browser-user';
import { CHROMEDRIVER_FIRST_PAGE } from './chromium-process';
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
    // `for last` walks "$@", leaving its last argument: a page there is chromedriver's own.
    'for last; do :; done',
    `case "$last" in -*|'') set -- "$@" ${quote(CHROMEDRIVER_FIRST_PAGE)};; esac`,
    `exec ${[command, ...args].map(quote).join(' ')} "$@"`,
    '',
  ].join('\n');
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
