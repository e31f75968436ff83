import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { sessionDevtoolsUrl } from '../../functions/servers/node/session-devtools';

describe("a socket session's DevTools socket", () => {
  it("is the session's se:cdp at the grid's own address, whatever name the answer gives the grid", () => {
    const session = {
      sessionId: 'abc_-123',
      capabilities: { 'se:cdp': 'wss://grid.example.com/prefix/session/abc_-123/se/cdp' },
    };
    expect(sessionDevtoolsUrl(session, 'http://127.0.0.1:4444', { protocol: 'cdp', pool: 'hub' })).toBe(
      'ws://127.0.0.1:4444/session/abc_-123/se/cdp',
    );
  });

  it('refuses a session whose browser answered no se:cdp, naming the pool', () => {
    const session = { sessionId: 'abc', capabilities: { browserName: 'chrome' } };
    const refusal = () =>
      sessionDevtoolsUrl(session, 'http://127.0.0.1:4444', { protocol: 'playwright', pool: 'drivers' });
    expect(refusal).toThrow(WebDriverError);
    expect(refusal).toThrow(/the pool drivers cannot serve Playwright clients: .*no se:cdp/);
  });
});
