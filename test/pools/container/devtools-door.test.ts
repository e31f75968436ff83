import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { devtoolsAddress, withDevtoolsAt } from '../../../functions/core/devtools-address';
import { devtoolsPortOf, sweepDoors } from '../../../functions/pools/container/devtools-door';
import { ownMark } from '../../../functions/pools/container/owner-mark';

describe('devtoolsPortOf', () => {
  it("reads the port of chromedriver's debuggerAddress inside the container", () => {
    expect(devtoolsPortOf('localhost:42971')).toBe(42971);
    expect(devtoolsPortOf('127.0.0.1:9222')).toBe(9222);
  });

  it('opens no door to an address off the container’s loopback, or to no port', () => {
    expect(devtoolsPortOf('')).toBeUndefined();
    expect(devtoolsPortOf('10.0.0.5:9222')).toBeUndefined();
    expect(devtoolsPortOf('localhost:0')).toBeUndefined();
    expect(devtoolsPortOf('localhost:70000')).toBeUndefined();
    expect(devtoolsPortOf('localhost:9222/x')).toBeUndefined();
  });
});

describe('withDevtoolsAt', () => {
  it('answers the door as the DevTools address and offers se:cdp, keeping the other Chrome options', () => {
    const answered = withDevtoolsAt(
      { browserName: 'chrome', 'goog:chromeOptions': { debuggerAddress: 'localhost:42971', w3c: true } },
      '127.0.0.2:40001',
    );
    expect(devtoolsAddress(answered)).toBe('127.0.0.2:40001');
    expect(answered['goog:chromeOptions']).toEqual({ debuggerAddress: '127.0.0.2:40001', w3c: true });
    expect(typeof answered['se:cdp']).toBe('string');
  });
});

describe('sweepDoors', () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('deletes only the door names of gridgate processes that are gone', async () => {
    directory = await mkdtemp(join(tmpdir(), 'door-sweep-'));
    const names = [
      `gridgate-door-${ownMark()}-aaaaaaaaaaaa`, // this process: alive
      'gridgate-door-1-1-bbbbbbbbbbbb', // pid 1 never started at tick 1
      'gridgate-1-2-abcdef', // a local browser's namespace: not a door
      'netns-962cba4a', // the engine's own
    ];
    await Promise.all(names.map((name) => writeFile(join(directory as string, name), '')));
    expect(await sweepDoors(directory)).toBe(1);
  });
});
