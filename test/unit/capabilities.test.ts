import { describe, expect, it } from 'vitest';
import { parseNewSessionBody } from '../../functions/core/capabilities';
import { WebDriverError } from '../../functions/core/errors';

const parse = (body: unknown) => parseNewSessionBody(typeof body === 'string' ? body : JSON.stringify(body));

function invalidArgument(body: unknown): WebDriverError {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    expect((error as WebDriverError).code).toBe('invalid argument');
    expect((error as WebDriverError).status).toBe(400);
    return error as WebDriverError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('W3C new-session payloads (W3C §7.2)', () => {
  it('merges alwaysMatch into each firstMatch entry, in the client’s order', () => {
    const request = parse({
      capabilities: {
        alwaysMatch: { acceptInsecureCerts: true },
        firstMatch: [
          { browserName: 'firefox' },
          { browserName: 'chrome', 'goog:chromeOptions': { args: [] } },
        ],
      },
    });
    expect(request).toEqual({
      protocol: 'w3c',
      candidates: [
        { acceptInsecureCerts: true, browserName: 'firefox' },
        { acceptInsecureCerts: true, browserName: 'chrome', 'goog:chromeOptions': { args: [] } },
      ],
    });
  });

  it('treats a missing firstMatch as one empty entry', () => {
    expect(parse({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }).candidates).toEqual([
      { browserName: 'chrome' },
    ]);
  });

  it('treats a missing alwaysMatch as empty', () => {
    expect(parse({ capabilities: { firstMatch: [{ browserName: 'chrome' }] } }).candidates).toEqual([
      { browserName: 'chrome' },
    ]);
  });

  it('accepts empty capabilities as one empty candidate', () => {
    expect(parse({ capabilities: {} }).candidates).toEqual([{}]);
  });

  it('refuses a key that is in both alwaysMatch and a firstMatch entry', () => {
    const error = invalidArgument({
      capabilities: { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{}, { browserName: 'firefox' }] },
    });
    expect(error.message).toContain('browserName');
    expect(error.message).toContain('firstMatch[1]');
  });

  it('drops null values, which mean "not set"', () => {
    const request = parse({
      capabilities: {
        alwaysMatch: { browserName: 'chrome', browserVersion: null },
        firstMatch: [{ browserVersion: null }],
      },
    });
    expect(request.candidates).toEqual([{ browserName: 'chrome' }]);
  });

  it('lets a firstMatch entry set a key that alwaysMatch set to null', () => {
    const request = parse({
      capabilities: { alwaysMatch: { browserVersion: null }, firstMatch: [{ browserVersion: '156' }] },
    });
    expect(request.candidates).toEqual([{ browserVersion: '156' }]);
  });

  it.each([
    ['browserName', 42],
    ['browserVersion', 156],
    ['platformName', true],
    ['acceptInsecureCerts', 'yes'],
    ['pageLoadStrategy', 'fast'],
    ['proxy', 'direct'],
    ['setWindowRect', 1],
    ['timeouts', []],
    ['strictFileInteractability', 'no'],
    ['unhandledPromptBehavior', 3],
    ['webSocketUrl', 'ws://x'],
  ])('refuses %s with a value of the wrong type (%j)', (key, value) => {
    expect(invalidArgument({ capabilities: { alwaysMatch: { [key]: value } } }).message).toContain(key);
  });

  it('accepts every standard capability with a value of the right type', () => {
    const all = {
      browserName: 'chrome',
      browserVersion: '156',
      platformName: 'linux',
      acceptInsecureCerts: true,
      pageLoadStrategy: 'eager',
      proxy: { proxyType: 'direct' },
      setWindowRect: false,
      timeouts: { implicit: 0 },
      strictFileInteractability: true,
      unhandledPromptBehavior: { alert: 'dismiss' },
      userAgent: 'test',
      webSocketUrl: true,
    };
    expect(parse({ capabilities: { alwaysMatch: all } }).candidates).toEqual([all]);
  });

  it.each([
    ['timeouts', { script: null, pageLoad: 2.0, implicit: 2 ** 53 - 1 }],
    ['timeouts', {}],
    ['proxy', { proxyType: 'pac', proxyAutoconfigUrl: 'http://proxy.example/pac' }],
    // Python selenium sends socksUsername, which chromedriver ignores: not ours to refuse.
    ['proxy', { proxyType: 'manual', socksProxy: 'h:1080', socksVersion: 5, socksUsername: 'u' }],
    ['proxy', { proxyType: 'manual', httpProxy: 'h:3128', noProxy: ['localhost'] }],
    ['unhandledPromptBehavior', 'dismiss and notify'],
    ['pageLoadStrategy', 'none'],
  ])('accepts %s %j', (key, value) => {
    expect(parse({ capabilities: { alwaysMatch: { [key]: value } } }).candidates).toEqual([{ [key]: value }]);
  });

  it.each([
    ['proxy', { proxyType: 'SYSTEM' }],
    ['proxy', { proxytype: 'system' }],
    ['proxy', { proxyType: 'system ' }],
    ['proxy', { proxyType: 'pac' }],
    ['proxy', { proxyType: 'manual', socksProxy: 'h:1080' }],
    ['proxy', { proxyType: 'manual', socksProxy: 'h:1080', socksVersion: 256 }],
    ['proxy', { proxyType: 'manual', httpProxy: 3128 }],
    ['timeouts', { pageLoad: null }],
    ['timeouts', { implicit: -1 }],
    ['timeouts', { pageLoad: 2 ** 53 }],
    ['timeouts', { PAGELOAD: 10 }],
    ['unhandledPromptBehavior', 'Accept'],
    ['pageLoadStrategy', 'NONE'],
    ['goog:chromeOptions', []],
    ['goog:chromeOptions', { args: '--headless' }],
  ])('refuses %s %j, saying what it must be', (key, value) => {
    const error = invalidArgument({ capabilities: { firstMatch: [{ [key]: value }] } });
    expect(error.message.startsWith(`capability ${key} in firstMatch[0] `)).toBe(true);
    expect(error.message).toMatch(/must|needs|has no key/);
    expect(error.message).toContain(JSON.stringify(value));
  });

  it('refuses an unknown capability without a vendor prefix', () => {
    const error = invalidArgument({
      capabilities: { firstMatch: [{ browserName: 'chrome', enableVNC: true }] },
    });
    expect(error.message).toContain('enableVNC');
    expect(error.message).toContain('firstMatch[0]');
  });

  it('accepts extension capabilities with any prefix', () => {
    const caps = { 'goog:chromeOptions': { args: ['--x'] }, 'selenoid:options': { enableVNC: true } };
    expect(parse({ capabilities: { alwaysMatch: caps } }).candidates).toEqual([caps]);
  });

  it.each([
    ['capabilities is not an object', { capabilities: [] }],
    ['alwaysMatch is not an object', { capabilities: { alwaysMatch: 'chrome' } }],
    ['firstMatch is not a list', { capabilities: { firstMatch: {} } }],
    ['firstMatch is an empty list', { capabilities: { firstMatch: [] } }],
    ['a firstMatch entry is not an object', { capabilities: { firstMatch: [{}, null] } }],
    ['alwaysMatch is null', { capabilities: { alwaysMatch: null } }],
    ['firstMatch is null', { capabilities: { firstMatch: null } }],
  ])('refuses a payload where %s', (_, body) => {
    invalidArgument(body);
  });
});

describe('JSON Wire new-session payloads', () => {
  it('translates desiredCapabilities to one W3C candidate', () => {
    const request = parse({
      desiredCapabilities: {
        browserName: 'chrome',
        version: '156',
        platform: 'LINUX',
        acceptSslCerts: true,
        chromeOptions: { args: ['--headless=new'] },
      },
    });
    expect(request).toEqual({
      protocol: 'jsonwire',
      candidates: [
        {
          browserName: 'chrome',
          browserVersion: '156',
          platformName: 'linux',
          acceptInsecureCerts: true,
          'goog:chromeOptions': { args: ['--headless=new'] },
        },
      ],
    });
  });

  it('drops platform ANY and an empty version, which mean "any"', () => {
    const request = parse({ desiredCapabilities: { browserName: 'chrome', version: '', platform: 'ANY' } });
    expect(request.candidates).toEqual([{ browserName: 'chrome' }]);
  });

  it('drops platform "any" whatever its case', () => {
    expect(parse({ desiredCapabilities: { platform: 'any' } }).candidates).toEqual([{}]);
  });

  it('drops JSON Wire-only keys a W3C remote end would refuse', () => {
    const request = parse({
      desiredCapabilities: {
        browserName: 'chrome',
        javascriptEnabled: true,
        takesScreenshot: true,
        nativeEvents: false,
      },
    });
    expect(request.candidates).toEqual([{ browserName: 'chrome' }]);
  });

  it('drops null values', () => {
    expect(parse({ desiredCapabilities: { browserName: 'chrome', version: null } }).candidates).toEqual([
      { browserName: 'chrome' },
    ]);
  });

  it('still checks the types of the capabilities it keeps', () => {
    expect(invalidArgument({ desiredCapabilities: { version: 156 } }).message).toContain('browserVersion');
  });

  it('prefers W3C capabilities when a client sends both shapes', () => {
    const request = parse({
      desiredCapabilities: { browserName: 'firefox' },
      capabilities: { alwaysMatch: { browserName: 'chrome' } },
    });
    expect(request).toEqual({ protocol: 'w3c', candidates: [{ browserName: 'chrome' }] });
  });
});

describe('malformed new-session bodies', () => {
  it('refuses a body that is not JSON', () => {
    expect(invalidArgument('{"capabilities": ').message).toMatch(/not valid JSON/);
  });

  it('refuses an empty body', () => {
    invalidArgument('');
  });

  it.each([['[]'], ['"chrome"'], ['42'], ['null']])('refuses the non-object body %s', (body) => {
    expect(invalidArgument(body).message).toMatch(/JSON object/);
  });

  it('refuses a body with neither capabilities nor desiredCapabilities', () => {
    expect(invalidArgument({ browserName: 'chrome' }).message).toMatch(/capabilities/);
  });

  it('refuses desiredCapabilities that are not an object', () => {
    invalidArgument({ desiredCapabilities: 'chrome' });
  });
});
