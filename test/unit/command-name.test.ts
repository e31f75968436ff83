import { describe, expect, it } from 'vitest';
import { commandName } from '../../functions/core/command-name';

describe('commandName', () => {
  it('names a command by its method and path after the session', () => {
    expect(commandName('POST', '/url')).toBe('POST /url');
    expect(commandName('get', '/window/handles')).toBe('GET /window/handles');
  });

  it('replaces element and shadow root IDs and cookie names with placeholders', () => {
    expect(commandName('POST', '/element/6a1c-09f2/click')).toBe('POST /element/{id}/click');
    expect(commandName('POST', '/element/6a1c/element')).toBe('POST /element/{id}/element');
    expect(commandName('POST', '/shadow/77ab/elements')).toBe('POST /shadow/{id}/elements');
    expect(commandName('DELETE', '/cookie/session-token')).toBe('DELETE /cookie/{name}');
    expect(commandName('GET', '/cookie')).toBe('GET /cookie');
  });

  it('keeps the fixed route /element/active', () => {
    expect(commandName('GET', '/element/active')).toBe('GET /element/active');
  });

  it('names a command on the session itself', () => {
    expect(commandName('DELETE', '')).toBe('DELETE session');
    expect(commandName('GET', '/')).toBe('GET session');
  });

  it('cuts a very long path so a stored record stays small', () => {
    const name = commandName('POST', `/goog/${'x'.repeat(500)}`);
    expect(name).toHaveLength(120);
    expect(name.endsWith('…')).toBe(true);
  });
});
