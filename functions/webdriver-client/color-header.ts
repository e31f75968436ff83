/**
 * Makes a browser carry its session's environment colour: for Chromium-based browsers, the DevTools
 * command Network.setExtraHTTPHeaders sent through the driver's own CDP command (`POST
 * /session/{id}/goog/cdp/execute`), which needs no WebSocket and passes through hubs as any command does.
 *
 * Limits: the headers belong to the DevTools session of the page the driver is attached to, which
 * follows the current window across navigations; a window or tab opened later does not carry them.
 * Firefox and Safari offer no such command, so a coloured session on a pool that asks for the header
 * fails there rather than run without it.
 */
import type { Dispatcher } from 'undici';
import { type Capabilities, isObject } from '../core/capabilities';
import { LaunchFailure } from '../core/host-choice';
import type { ColorHeaderTarget } from '../core/upstream-webdriver';

// The driver's vendor prefix of its CDP command: chromedriver's "goog", msedgedriver's "ms".
function cdpVendor(capabilities: Capabilities): string | undefined {
  const name = typeof capabilities.browserName === 'string' ? capabilities.browserName.toLowerCase() : '';
  if (name === 'msedge' || name === 'microsoftedge') return 'ms';
  // A hub may answer without capabilities: then the command itself says whether the browser has CDP.
  if (['', 'chrome', 'chromium', 'chrome-headless-shell'].includes(name)) return 'goog';
  return undefined;
}

/**
 * Has the browser send `header: color` on every request of its current page from now on. Throws a
 * LaunchFailure when it cannot, since a coloured session that silently sends no colour would test
 * the baseline while its owner thinks it tests a feature environment.
 */
export async function sendColorHeader(
  agent: Dispatcher,
  target: ColorHeaderTarget,
  header: string,
  color: string,
  signal: AbortSignal,
): Promise<void> {
  const vendor = cdpVendor(target.capabilities);
  const cannot = (why: string) => {
    const message = `cannot make the browser send the ${header} header: ${why}`;
    return new LaunchFailure('refused', message, message);
  };
  if (!vendor) {
    throw cannot(
      `${String(target.capabilities.browserName)} has no DevTools command for it (only Chromium-based browsers do)`,
    );
  }
  const path = `${target.endpoint.basePath}/session/${encodeURIComponent(target.upstreamId)}/${vendor}/cdp/execute`;
  const commands: [string, Record<string, unknown>][] = [
    ['Network.enable', {}],
    ['Network.setExtraHTTPHeaders', { headers: { [header]: color } }],
  ];
  for (const [cmd, params] of commands) {
    let status: number;
    let text: string;
    try {
      const response = await agent.request({
        origin: target.endpoint.origin,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          ...(target.endpoint.authorization ? { authorization: target.endpoint.authorization } : {}),
        },
        body: JSON.stringify({ cmd, params }),
        signal,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw cannot(`${cmd} failed: ${(error as Error).message}`);
    }
    if (status !== 200) throw cannot(`${cmd} was answered ${status}: ${errorMessage(text)}`);
  }
}

function errorMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    const value = isObject(body) ? body.value : undefined;
    if (isObject(value) && typeof value.message === 'string') return value.message.split('\n')[0] as string;
  } catch {
    // Not JSON: the text itself says more than nothing.
  }
  return text.slice(0, 200);
}
