import { describe, expect, it } from 'vitest';
import { WebDriverError } from '../../functions/core/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from '../../functions/core/json-body';

const lists = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

function refusal(text: string): WebDriverError {
  try {
    parseJsonBody(text, 'the body');
  } catch (error) {
    expect(error).toBeInstanceOf(WebDriverError);
    return error as WebDriverError;
  }
  throw new Error(`expected ${text.slice(0, 40)} to be refused`);
}

describe('JSON bodies gridgate reads itself', () => {
  it('reads a body nested as deep as chromedriver reads (200 levels)', () => {
    expect(MAX_JSON_DEPTH).toBe(200);
    expect(parseJsonBody(lists(200), 'the body')).toBeInstanceOf(Array);
  });

  it('refuses one level more, and 10,000, with 400 invalid argument naming the limit', () => {
    for (const depth of [201, 10_000]) {
      const error = refusal(lists(depth));
      expect(error.code).toBe('invalid argument');
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        'the body nests objects and lists more than 200 levels deep, deeper than gridgate (or chromedriver) reads',
      );
    }
  });

  it('refuses text that is not JSON with 400 invalid argument, saying so', () => {
    const error = refusal('{"capabilities":');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^the body is not valid JSON: /);
  });

  it('counts no bracket inside a string, escaped quotes and backslashes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'say \\"[[[["' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'ends in \\', b: '[[[[' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'x', b: [[1]] }), 2)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify([{}, {}, {}, {}]), 2)).toBe(false);
  });
});
