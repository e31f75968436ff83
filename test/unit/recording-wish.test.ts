/** Whether a session is recorded: each capability style, the pool's and config's defaults, and bad values refused. */
import { describe, expect, it } from 'vitest';
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

describe('recording wish', () => {
  it('records nothing unless asked', () => {
    expect(wish({})).toEqual({ video: false, log: false });
  });

  it('reads Selenium Grid 4’s se:recordVideo and se:name', () => {
    expect(wish({ 'se:recordVideo': true, 'se:name': 'login works' })).toEqual({
      video: true,
      log: false,
      name: 'login works',
    });
  });

  it('reads selenoid:options as Selenoid does', () => {
    const selenoid = {
      enableVideo: true,
      videoName: 'login.mp4',
      enableLog: true,
      logName: 'login.log',
      name: 'login',
    };
    expect(wish({ 'selenoid:options': selenoid })).toEqual({
      video: true,
      log: true,
      name: 'login',
      videoName: 'login.mp4',
      logName: 'login.log',
    });
  });

  it('reads gridgate:options {video, log}', () => {
    expect(wish({}, { video: true, log: true })).toEqual({ video: true, log: true });
  });

  it('records every session when the config or the pool says so, unless the client says false', () => {
    expect(wish({}, undefined, config({ video: true, log: true }))).toEqual({ video: true, log: true });
    expect(wish({}, undefined, config({}, { video: true }))).toEqual({ video: true, log: false });
    expect(wish({ 'se:recordVideo': false }, { log: false }, config({ video: true, log: true }))).toEqual({
      video: false,
      log: false,
    });
    // The pool's setting wins over the config's.
    expect(wish({}, undefined, config({ video: true }, { video: false }))).toEqual({
      video: false,
      log: false,
    });
  });

  it('refuses values of the wrong type as invalid argument', () => {
    const refused = (capabilities: Record<string, unknown>, options?: unknown) => {
      try {
        recordingAsk(capabilities, options);
      } catch (error) {
        expect(error).toBeInstanceOf(WebDriverError);
        return `${(error as WebDriverError).code}: ${(error as Error).message}`;
      }
      return 'accepted';
    };
    expect(refused({ 'se:recordVideo': 'yes' })).toBe(
      'invalid argument: se:recordVideo must be true or false',
    );
    expect(refused({ 'selenoid:options': [] })).toBe(
      'invalid argument: selenoid:options must be a JSON object',
    );
    expect(refused({}, { video: 1 })).toBe('invalid argument: gridgate:options.video must be true or false');
    expect(refused({ 'se:name': 7 })).toBe('invalid argument: se:name must be a string');
    expect(refused({ 'selenoid:options': { videoName: '../../etc/passwd' } })).toMatch(
      /^invalid argument: selenoid:options.videoName must be a file name/,
    );
  });
});
