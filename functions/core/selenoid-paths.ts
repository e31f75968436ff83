/**
 * Selenoid's own paths beside WebDriver's (`/video/`, `/logs/`, `/download/`, `/clipboard/`, `/devtools/`,
 * `/vnc/`), named by gridgate's session ID, and where each goes on a hub: the hub's session ID in its place,
 * as ggr rewrites them (ggr proxy.go `video`, `logs`, `download`, `clipboard`, `devtools`; a video is
 * `{id}.mp4`, a log `{id}.log`). Pure: the HTTP and WebSocket layers verify the ID and make the call.
 */

export type SelenoidPathKind = 'video' | 'logs' | 'download' | 'clipboard' | 'devtools' | 'vnc';

export interface SelenoidPath {
  kind: SelenoidPathKind;
  /** gridgate's session ID, as the client gave it (not verified yet). */
  token: string;
  /** What follows the ID: "/name.txt" for a download, "/page" or "" for devtools, else "". */
  rest: string;
}

const PATH = /^\/(video|logs|download|clipboard|devtools|vnc)\/([A-Za-z0-9_-]+)(\.mp4|\.log)?((?:\/[^/]*)*)$/;
// The file and DevTools target names after the ID name nothing but the session's own files and targets,
// never another of the hub's paths, since the hub hears these with gridgate's credentials for it: each
// segment, decoded, is a plain name (no "." or "..", no "/" or "\\", no control characters).
function isPlainName(segment: string): boolean {
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\u0000-\u001f\u007f]/.test(name);
}

/**
 * The Selenoid path `pathname` names, or undefined when it is none: `/video/{id}` or `/video/{id}.mp4`,
 * `/logs/{id}` or `/logs/{id}.log`, `/download/{id}/{file}`, `/clipboard/{id}`, `/devtools/{id}` with any
 * number of name segments after it, `/vnc/{id}`.
 */
export function parseSelenoidPath(pathname: string): SelenoidPath | undefined {
  const match = PATH.exec(pathname);
  if (!match) return undefined;
  const kind = match[1] as SelenoidPathKind;
  const token = match[2] as string;
  const extension = match[3] ?? '';
  const rest = match[4] ?? '';
  const segments = rest === '' ? [] : rest.slice(1).split('/');
  if (extension && extension !== EXTENSION[kind]) return undefined;
  if (!segments.every(isPlainName)) return undefined;
  switch (kind) {
    case 'download':
      return segments.length === 1 ? { kind, token, rest } : undefined;
    case 'devtools':
      return { kind, token, rest };
    default:
      return segments.length === 0 ? { kind, token, rest: '' } : undefined;
  }
}

const EXTENSION: Partial<Record<SelenoidPathKind, string>> = { video: '.mp4', logs: '.log' };

/** The hub's path for the same thing, at the hub's root (Selenoid serves these beside /wd/hub, not under it). */
export function hubPathOf(path: SelenoidPath, upstreamId: string): string {
  const id = encodeURIComponent(upstreamId);
  return `/${path.kind}/${id}${EXTENSION[path.kind] ?? ''}${path.rest}`;
}
