/**
 * The checks a CDP or BiDi command's parameters get when they name a place on the browser's machine: a path
 * (or `file:` URL) must lie inside the session's own folder, or the command is refused with the reason. Pure:
 * whether a path lies inside is asked of the adapter that knows the file system (`inside`).
 */

export interface HostPathContext {
  /** Whether an absolute path lies inside the session's folder once `..` and symbolic links are resolved. */
  inside(path: string): Promise<boolean>;
  /** The session's folder, named in refusals so the client knows where it may point the browser. */
  folder: string;
  /** The session's downloads folder (inside `folder`), which a client's own temporary download folder becomes. */
  downloads: string;
}

/** Why a command is refused, or undefined when it may go on (its parameters possibly confined in place). */
export type CommandRule = (
  params: Record<string, unknown>,
  context: HostPathContext,
) => Promise<string | undefined>;

/**
 * Playwright's download folder over se:cdp: a folder it made on its own machine (`mkdtemp` of
 * `playwright-artifacts-`), which names nothing the browser's machine should write to and which it sends
 * with every context it opens. Taken as the session's downloads folder rather than refused, so Playwright
 * still connects; whatever such a name says, the browser is given the session's folder.
 */
const CLIENT_ARTIFACTS_FOLDER = /(?:^|[\\/])playwright-artifacts-[A-Za-z0-9]{6}[\\/]?$/;

/** A path the browser is to read or write: absolute, and inside the session's folder. */
export async function refusedPath(
  value: unknown,
  what: string,
  context: HostPathContext,
): Promise<string | undefined> {
  if (typeof value !== 'string') return `${what} is not a path`;
  // A relative path would be taken from the browser's working directory, which is gridgate's.
  if (!value.startsWith('/') || value.includes('\0'))
    return `${what} ${JSON.stringify(value)} is not an absolute path`;
  if (await context.inside(value)) return undefined;
  return `${what} ${JSON.stringify(value)} is outside this session's folder (${context.folder})`;
}

/** A list of such paths (files to upload, drop or open). */
export async function refusedPaths(
  value: unknown,
  what: string,
  context: HostPathContext,
): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return `${what} is not a list of paths`;
  for (const path of value) {
    const refusal =
      typeof path === 'string' && /^\s*file:/i.test(path)
        ? await refusedFileUrl(path, what, context)
        : await refusedPath(path, what, context);
    if (refusal) return refusal;
  }
  return undefined;
}

/** A URL the browser is to load itself: a `file:` one must name a path inside; others are the network's. */
export async function refusedFileUrl(
  value: unknown,
  what: string,
  context: HostPathContext,
): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return `${what} is not a URL`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // What this parser cannot read, Chromium's might read as a file: refused rather than guessed.
    return `${what} ${JSON.stringify(value)} is not a URL`;
  }
  if (url.protocol !== 'file:') return undefined;
  if (url.host !== '' && url.host !== 'localhost')
    return `${what} ${JSON.stringify(value)} names another host`;
  return refusedPath(decodeFilePath(url.pathname), what, context);
}

/**
 * A download folder (`params[key]`): inside the session's folder, or Playwright's own temporary folder, which
 * becomes the session's downloads folder; any other folder is refused. No folder (deny, default) is fine.
 */
export async function refusedDownloadFolder(
  params: Record<string, unknown>,
  key: string,
  what: string,
  context: HostPathContext,
): Promise<string | undefined> {
  const value = params[key];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && CLIENT_ARTIFACTS_FOLDER.test(value) && !(await context.inside(value))) {
    params[key] = context.downloads;
    return undefined;
  }
  return refusedPath(value, what, context);
}

function decodeFilePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}
