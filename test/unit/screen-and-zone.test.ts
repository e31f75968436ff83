/** A session's time zone and screen size as a container, task or pod starts with them, and a Chromium's switches. */
import { describe, expect, it } from 'vitest';
import { screenAndZoneEnvironment, withScreenWindow } from '../../functions/core/screen-and-zone';

describe('screenAndZoneEnvironment', () => {
  it("sets TZ and docker-selenium's screen size, depth left out", () => {
    expect(
      screenAndZoneEnvironment({ 'se:timeZone': 'Asia/Kolkata', 'se:screenResolution': '1366x768x24' }),
    ).toEqual({ TZ: 'Asia/Kolkata', SE_SCREEN_WIDTH: '1366', SE_SCREEN_HEIGHT: '768' });
  });

  it("reads Selenoid's selenoid:options too, Grid 4's spelling first", () => {
    expect(
      screenAndZoneEnvironment({
        'selenoid:options': { timeZone: 'Europe/Moscow', screenResolution: '1280x1024x24' },
      }),
    ).toEqual({ TZ: 'Europe/Moscow', SE_SCREEN_WIDTH: '1280', SE_SCREEN_HEIGHT: '1024' });
    expect(
      screenAndZoneEnvironment({
        'se:timeZone': 'Asia/Tokyo',
        'selenoid:options': { timeZone: 'Europe/Moscow' },
      }),
    ).toEqual({ TZ: 'Asia/Tokyo' });
    expect(() => screenAndZoneEnvironment({ 'selenoid:options': { timeZone: 'Nowhere/Else' } })).toThrow(
      'selenoid:options.timeZone "Nowhere/Else" is not a time zone this grid knows',
    );
    expect(() => screenAndZoneEnvironment({ 'selenoid:options': { screenResolution: 1024 } })).toThrow(
      /^selenoid:options\.screenResolution must be WIDTHxHEIGHT/,
    );
  });

  it('is empty for a session that asks neither, and refuses what no browser could take', () => {
    expect(screenAndZoneEnvironment({ browserName: 'chrome' })).toEqual({});
    expect(() => screenAndZoneEnvironment({ 'se:timeZone': 'TZ=evil' })).toThrow(/se:timeZone/);
    expect(() => screenAndZoneEnvironment({ 'se:screenResolution': '1x1' })).toThrow(/se:screenResolution/);
  });
});

describe('withScreenWindow', () => {
  it("adds a Chromium's window size and headless screen to its options, keeping the client's", () => {
    const asked = {
      browserName: 'chrome',
      'se:screenResolution': '1024x768',
      'goog:chromeOptions': { args: ['--lang=de'], prefs: { a: 1 } },
    };
    expect(withScreenWindow(asked)['goog:chromeOptions']).toEqual({
      args: ['--lang=de', '--window-size=1024,768', '--screen-info={1024x768}'],
      prefs: { a: 1 },
    });
    expect(withScreenWindow({ browserName: 'MicrosoftEdge', 'se:screenResolution': '800x600' })).toEqual({
      browserName: 'MicrosoftEdge',
      'se:screenResolution': '800x600',
      'ms:edgeOptions': { args: ['--window-size=800,600', '--screen-info={800x600}'] },
    });
  });

  it("leaves the client's own --window-size, other browsers and sessions asking no size as they are", () => {
    const own = {
      browserName: 'chrome',
      'se:screenResolution': '1024x768',
      'goog:chromeOptions': { args: ['--window-size=500,500'] },
    };
    expect(withScreenWindow(own)).toBe(own);
    const firefox = { browserName: 'firefox', 'se:screenResolution': '1024x768' };
    expect(withScreenWindow(firefox)).toBe(firefox);
    const plain = { browserName: 'chrome' };
    expect(withScreenWindow(plain)).toBe(plain);
  });
});
