import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../functions/core/config';

const DEFAULTS = { builtInBrowserVersion: '156.0.7000.1' };
const POOLS: Record<string, Record<string, unknown>> = {
  ecs: { kind: 'ecs' },
  eks: { kind: 'eks', cluster: 'browsers' },
  local: { kind: 'local' },
  hub: { kind: 'hub', url: 'http://hub.example:4444/wd/hub' },
};

function withPool(kind: string, settings: Record<string, unknown> = {}) {
  return {
    browsers: { chrome: { versions: { '156': { pools: ['p'] } } } },
    pools: { p: { ...POOLS[kind], ...settings } },
  };
}

function problems(kind: string, settings: Record<string, unknown>): string[] {
  try {
    parseConfig(withPool(kind, settings), DEFAULTS);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(settings)} to be refused`);
}

describe('the VNC view settings of a pool', () => {
  it.each(['ecs', 'eks'])('gives %s pools docker-selenium’s noVNC port and password by default', (kind) => {
    expect(parseConfig(withPool(kind), DEFAULTS).pools.p).toMatchObject({
      vncPort: 7900,
      vncPassword: 'secret',
    });
  });

  it.each(['ecs', 'eks'])(
    'turns the view off in %s pools with false or 0, and takes another port',
    (kind) => {
      expect(parseConfig(withPool(kind, { vncPort: false }), DEFAULTS).pools.p).toMatchObject({
        vncPort: false,
      });
      expect(parseConfig(withPool(kind, { vncPort: 0 }), DEFAULTS).pools.p).toMatchObject({ vncPort: 0 });
      expect(
        parseConfig(withPool(kind, { vncPort: 5900, vncPassword: 'x' }), DEFAULTS).pools.p,
      ).toMatchObject({
        vncPort: 5900,
        vncPassword: 'x',
      });
    },
  );

  it('refuses a port out of range and a port given as text, by path', () => {
    expect(problems('ecs', { vncPort: 70_000 })).toEqual([expect.stringMatching(/^pools\.p\.vncPort: /)]);
    expect(problems('eks', { vncPort: '7900' })).toEqual([expect.stringMatching(/^pools\.p\.vncPort: /)]);
  });

  it.each(['local', 'hub'])('has none in %s pools, whose browsers serve no noVNC', (kind) => {
    expect(problems(kind, { vncPort: 7900 })).toEqual([expect.stringMatching(/^pools\.p: .*vncPort/)]);
  });
});
