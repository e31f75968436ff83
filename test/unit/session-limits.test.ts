import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { WebDriverError } from '../../functions/core/errors';
import { queueTimeout, sessionLimits } from '../../functions/core/session-limits';

// idle 5m, max age 1h
const config = parseConfig({ timeouts: { idle: '5m', maxAge: '1h' } }, { builtInBrowserVersion: '1' });

function refused(options: unknown): string {
  try {
    sessionLimits(config, options);
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    expect((error as WebDriverError).code).toBe('invalid argument');
    expect((error as WebDriverError).status).toBe(400);
    return (error as WebDriverError).message;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('sessionLimits', () => {
  it('uses the config’s limits when the client sets no gridgate:options', () => {
    expect(sessionLimits(config, undefined)).toEqual({ idleTimeoutMs: 300_000, maxAgeMs: 3_600_000 });
  });

  it('uses the config’s limits for options that set neither', () => {
    expect(sessionLimits(config, {})).toEqual({ idleTimeoutMs: 300_000, maxAgeMs: 3_600_000 });
  });

  it('takes a shorter idle timeout and keeps the config’s maximum age', () => {
    expect(sessionLimits(config, { idleTimeout: '90s' })).toEqual({
      idleTimeoutMs: 90_000,
      maxAgeMs: 3_600_000,
    });
  });

  it('takes a shorter maximum age and keeps the config’s idle timeout', () => {
    expect(sessionLimits(config, { maxAge: '10m' })).toEqual({ idleTimeoutMs: 300_000, maxAgeMs: 600_000 });
  });

  it('accepts limits exactly as long as the config’s', () => {
    expect(sessionLimits(config, { idleTimeout: '5m', maxAge: '60m' })).toEqual({
      idleTimeoutMs: 300_000,
      maxAgeMs: 3_600_000,
    });
  });

  it('refuses an idle timeout longer than the config allows, naming both', () => {
    const message = refused({ idleTimeout: '5m1s' });
    expect(message).toContain('gridgate:options.idleTimeout');
    expect(message).toContain('5m1s');
    expect(message).toContain('(5m)');
  });

  it('refuses a maximum age longer than the config allows, naming both', () => {
    const message = refused({ maxAge: '2h' });
    expect(message).toContain('gridgate:options.maxAge');
    expect(message).toContain('(1h)');
  });

  it.each([[90], ['90'], ['soon'], ['0s'], [''], [null], [{ s: 90 }]])(
    'refuses the idle timeout %j, which is not a positive duration',
    (value) => {
      expect(refused({ idleTimeout: value })).toMatch(/idleTimeout must be a duration/);
    },
  );

  it.each([['fast'], [[]], [42], [null]])(
    'refuses gridgate:options that are not an object (%j)',
    (options) => {
      expect(refused(options)).toMatch(/gridgate:options must be a JSON object/);
    },
  );
});

describe('queueTimeout', () => {
  const grid = parseConfig({ timeouts: { queue: '60s' } }, { builtInBrowserVersion: '1' });

  function refusedWait(options: unknown): string {
    try {
      queueTimeout(grid, options);
    } catch (error) {
      expect(error).toBeInstanceOf(WebDriverError);
      expect((error as WebDriverError).status).toBe(400);
      return (error as WebDriverError).message;
    }
    throw new Error(`expected ${JSON.stringify(options)} to be refused`);
  }

  it('is timeouts.queue when the client asks for nothing', () => {
    expect(queueTimeout(grid, undefined)).toBe(60_000);
    expect(queueTimeout(grid, { idleTimeout: '1m' })).toBe(60_000);
  });

  it('takes a shorter wait, down to "0s" (do not wait)', () => {
    expect(queueTimeout(grid, { queueTimeout: '10s' })).toBe(10_000);
    expect(queueTimeout(grid, { queueTimeout: '0s' })).toBe(0);
  });

  it('refuses a longer wait than the config allows, naming both', () => {
    expect(refusedWait({ queueTimeout: '61s' })).toBe(
      'gridgate:options.queueTimeout 61s is longer than this grid allows (1m)',
    );
  });

  it.each([[30], ['soon'], [''], [null]])(
    'refuses the queue timeout %j, which is not a duration',
    (value) => {
      expect(refusedWait({ queueTimeout: value })).toMatch(/queueTimeout must be a duration/);
    },
  );
});
