/** Chromium's DevTools address as chromedriver reports it in a new session's capabilities. */
import { type Capabilities, isObject } from './capabilities';

/** `goog:chromeOptions.debuggerAddress` ("localhost:41575" → "127.0.0.1:41575"), or "" when there is none. */
export function devtoolsAddress(capabilities: Capabilities): string {
  const options = capabilities['goog:chromeOptions'];
  const address =
    isObject(options) && typeof options.debuggerAddress === 'string' ? options.debuggerAddress : '';
  return address.replace(/^localhost:/, '127.0.0.1:');
}
