/**
 * chromedriver's WebDriver commands that carry a CDP command over HTTP (`{"cmd", "params"}`, or a CDP
 * message), which reach the browser as the se:cdp socket's do: a local session's are held to the same host-path rules
 * (cdp-command-refusal.ts). Every other command's body is streamed unread.
 */
import { isRecord, refusedCdpCommand } from './cdp-command-refusal';
import type { HostPathContext } from './host-path-rules';

/**
 * The paths after /session/{id} (chromedriver 156's command map: Chromium's own `goog/cdp/execute`,
 * Selenium's `chromium/send_command` and `…_and_get_result`, which take `{"cmd", "params"}`, and
 * `chromium/send_command_from_websocket`, which takes a CDP message, `{"id" (negative), "method", "params"}`,
 * and runs it as well). chromedriver matches them exactly (no decoding, no case folding, no trailing slash;
 * `goog/cdp/executeAsync` is unknown to it), so an exact lookup finds every spelling it runs.
 */
const CDP_COMMAND_PATHS: ReadonlySet<string> = new Set([
  '/goog/cdp/execute',
  '/chromium/send_command',
  '/chromium/send_command_and_get_result',
  '/chromium/send_command_from_websocket',
]);

/** Bodies read to be checked are small (a CDP command and its params); more than this is refused (413). */
export const MAX_CDP_COMMAND_BODY = 1024 * 1024;

// Their lengths: a comparison of numbers turns almost every other command away before a string is hashed.
const CDP_COMMAND_PATH_LENGTHS: readonly number[] = [...CDP_COMMAND_PATHS].map((path) => path.length);

/**
 * Whether the command at `rest` (the path after /session/{id}, without its query) carries a CDP command.
 * Asked of every command the Node server relays, so it costs a few number comparisons for most.
 */
export function carriesCdpCommand(rest: string): boolean {
  return CDP_COMMAND_PATH_LENGTHS.includes(rest.length) && CDP_COMMAND_PATHS.has(rest);
}

/** What becomes of such a command's body: the text the browser gets, or why it is refused. */
export type CdpBodyVerdict = { forward: string } | { refusal: string };

/**
 * The body's fate. One that may go is sent as parsed and written again, so chromedriver reads exactly what
 * was checked (no duplicate `cmd` read one way here and another there, no escape read differently).
 */
export async function checkCdpCommandBody(text: string, context: HostPathContext): Promise<CdpBodyVerdict> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { refusal: 'gridgate refuses a CDP command whose body is not JSON' };
  }
  if (!isRecord(body)) return { refusal: 'gridgate refuses a CDP command whose body is not a JSON object' };
  // The method is `cmd` on three paths and `method` on the fourth; both are checked on every path, so no
  // path is read by the wrong name. The params are the body's own object: a rule that confines one in place
  // confines the body.
  const refusal =
    (await refusedCdpCommand({ method: body.cmd, params: body.params }, context)) ??
    (await refusedCdpCommand(body, context));
  return refusal === undefined ? { forward: JSON.stringify(body) } : { refusal };
}
