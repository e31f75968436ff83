/** Chromium's DevTools address as chromedriver reports it in a new session's capabilities. */
import { type Capabilities, isObject } from './capabilities';

/**
 * The answer of a session whose DevTools gridgate reaches itself at `address` on its own machine (a local
 * browser's port, forwarded from its namespace or not; a container's DevTools door): that address as its
 * debuggerAddress, and se:cdp offered (the client is shown gridgate's own se:cdp URL, never this one).
 */
export function withDevtoolsAt(capabilities: Capabilities, address: string): Capabilities {
  const options = isObject(capabilities['goog:chromeOptions']) ? capabilities['goog:chromeOptions'] : {};
  return {
    ...capabilities,
    'goog:chromeOptions': { ...options, debuggerAddress: address },
    'se:cdp': `ws://${address}/devtools/browser`,
  };
}

/** `goog:chromeOptions.debuggerAddress` ("localhost:41575" → "127.0.0.1:41575"), or "" when there is none. */
export function devtoolsAddress(capabilities: Capabilities): string {
  const options = capabilities['goog:chromeOptions'];
  const address =
    isObject(options) && typeof options.debuggerAddress === 'string' ? options.debuggerAddress : '';
  return address.replace(/^localhost:/, '127.0.0.1:');
}
