/** The CPU profile summary: self time by sample, grouped by where the code lives. */
import { describe, expect, it } from 'vitest';
import { type CpuProfile, placeOf, selfTimes } from '../../bench/cpu-profile-summary';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

describe('placeOf', () => {
  it('names the package, the folder of ours, Node or V8 a function belongs to', () => {
    expect(placeOf('file:///repo/node_modules/undici/lib/dispatcher/client-h1.js', 'x')).toBe('undici');
    expect(placeOf('file:///repo/node_modules/@hono/node-server/dist/index.mjs', 'x')).toBe(
      '@hono/node-server',
    );
    expect(placeOf('file:///repo/functions/http/forward-command.ts', 'x')).toBe('functions/http');
    expect(placeOf('node:internal/streams/writable', 'x')).toBe('node: internals');
    expect(placeOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(placeOf('', 'writev')).toBe('(native)');
  });
});

describe('selfTimes', () => {
  it("adds each sample's time to the node it hit, then by key", () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('a', 'file:///r/node_modules/undici/a.js') },
        { id: 3, callFrame: frame('b', 'file:///r/node_modules/undici/b.js') },
        { id: 4, callFrame: frame('(idle)') },
      ],
      samples: [2, 3, 2, 4],
      timeDeltas: [100, 50, 25, 1000],
    };
    const byPlace = selfTimes(profile, (node) => placeOf(node.callFrame.url, node.callFrame.functionName));
    expect(byPlace).toEqual([
      { name: '(idle)', micros: 1000 },
      { name: 'undici', micros: 175 },
    ]);
  });
});
