import { describe, expect, it } from 'vitest';
import { protocolAsked } from '../../functions/core/session-protocol';

describe("a session's protocol", () => {
  it('is the socket protocol gridgate:options names, and WebDriver without one', () => {
    expect(protocolAsked({ protocol: 'playwright' })).toBe('playwright');
    expect(protocolAsked({ protocol: 'cdp', idleTimeout: '30s' })).toBe('cdp');
    expect(protocolAsked({ idleTimeout: '30s' })).toBeUndefined();
    expect(protocolAsked(undefined)).toBeUndefined();
  });

  it('refuses a protocol it does not know with invalid argument', () => {
    expect(() => protocolAsked({ protocol: 'webdriver-bidi' })).toThrow(
      /gridgate:options.protocol is "cdp" or "playwright"/,
    );
    expect(() => protocolAsked({ protocol: 1 })).toThrow(/invalid|protocol/);
  });
});
