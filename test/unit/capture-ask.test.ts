/** Whether a session asked for its console and network traffic: each cloud's spelling, defaults, bad values. */
import { describe, expect, it } from 'vitest';
import { captureAsk } from '../../functions/core/capture-ask';
import { parseConfig } from '../../functions/core/config';
import { WebDriverError } from '../../functions/core/errors';
import { recordingAsk, recordingWish } from '../../functions/core/recording-wish';

const config = (recording: Record<string, unknown> = {}, pool: Record<string, unknown> = {}) =>
  parseConfig(
    {
      recording,
      browsers: { chrome: { versions: { '1': { pools: ['local'] } } } },
      pools: { local: { kind: 'local', ...pool } },
    },
    { builtInBrowserVersion: '1' },
  );
const wish = (capabilities: Record<string, unknown>, options?: unknown, given = config()) =>
  recordingWish(given, given.pools.local as never, recordingAsk(capabilities, options));

function refused(capabilities: Record<string, unknown>, options?: unknown): string {
  try {
    captureAsk(capabilities, options);
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    return `${(error as WebDriverError).code}: ${(error as Error).message}`;
  }
  return 'accepted';
}

describe('capture ask', () => {
  it('captures nothing unless asked', () => {
    expect(captureAsk({}, undefined)).toEqual({});
    expect(wish({})).toEqual({ video: false, log: false });
  });

  it('reads gridgate:options {console, network}', () => {
    expect(captureAsk({}, { console: true, network: false })).toEqual({ console: true, network: false });
    expect(wish({}, { console: true, network: true })).toEqual({
      video: false,
      log: false,
      console: true,
      network: true,
    });
  });

  it('reads BrowserStack’s bstack:options and its older top-level capabilities', () => {
    expect(
      captureAsk({ 'bstack:options': { consoleLogs: 'errors', networkLogs: 'true' } }, undefined),
    ).toEqual({ console: true, network: true });
    expect(
      captureAsk({ 'bstack:options': { consoleLogs: 'disable', networkLogs: false } }, undefined),
    ).toEqual({ console: false, network: false });
    expect(
      captureAsk({ 'browserstack.console': 'verbose', 'browserstack.networkLogs': true }, undefined),
    ).toEqual({ console: true, network: true });
    expect(captureAsk({ 'browserstack.consoleLogs': 'info' }, undefined)).toEqual({ console: true });
  });

  it('reads LambdaTest’s LT:Options and its top-level capabilities', () => {
    expect(captureAsk({ 'LT:Options': { console: 'error', network: true } }, undefined)).toEqual({
      console: true,
      network: true,
    });
    expect(captureAsk({ console: true, network: 'false' }, undefined)).toEqual({
      console: true,
      network: false,
    });
  });

  it('lets gridgate:options win over a cloud’s spelling', () => {
    expect(captureAsk({ 'bstack:options': { networkLogs: true } }, { network: false })).toEqual({
      network: false,
    });
  });

  it('captures every session when the config or the pool says so, unless the client says false', () => {
    expect(wish({}, undefined, config({ console: true, network: true }))).toEqual({
      video: false,
      log: false,
      console: true,
      network: true,
    });
    expect(wish({}, undefined, config({}, { network: true }))).toEqual({
      video: false,
      log: false,
      network: true,
    });
    expect(wish({}, { console: false }, config({ console: true }, { console: true }))).toEqual({
      video: false,
      log: false,
    });
    expect(wish({}, undefined, config({ network: true }, { network: false }))).toEqual({
      video: false,
      log: false,
    });
  });

  it('refuses values a cloud would not take as invalid argument', () => {
    expect(refused({}, { console: 1 })).toMatch(
      /^invalid argument: gridgate:options.console must be true, false/,
    );
    expect(refused({ 'bstack:options': { consoleLogs: 'loud' } })).toMatch(
      /^invalid argument: bstack:options.consoleLogs must be true, false or one of .*"verbose".*not "loud"$/,
    );
    expect(refused({ 'bstack:options': { networkLogs: 'errors' } })).toMatch(
      /^invalid argument: bstack:options.networkLogs must be/,
    );
    expect(refused({ 'LT:Options': 'console' })).toBe('invalid argument: LT:Options must be a JSON object');
    expect(refused({}, 'network')).toBe('invalid argument: gridgate:options must be a JSON object');
  });
});
