/** Kept recordings on disk: moved in whole, removed after the retention, and the oldest first past the size cap. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type RecordingConfig } from '../../../functions/core/config';
import { LocalRecordings } from '../../../functions/pools/local/local-recordings';

let root: string;
let settings: RecordingConfig;
let recordings: LocalRecordings;
const HOUR = 3600_000;
const T0 = Date.UTC(2026, 0, 1);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gridgate-recordings-'));
  settings = parseConfig(
    { recording: { directory: join(root, 'kept'), retention: '2h', maxDiskSize: '3000B' } },
    { builtInBrowserVersion: '1' },
  ).recording;
  recordings = new LocalRecordings(() => settings);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const keyOf = (n: number) => n.toString(16).padStart(16, '0');

async function keep(n: number, endedAt: number, bytes: number) {
  const path = join(root, `video-${n}.mp4`);
  writeFileSync(path, Buffer.alloc(bytes));
  return recordings.keep({
    session: {
      key: keyOf(n),
      user: 'alice',
      pool: 'local',
      browserName: 'chrome',
      browserVersion: '1',
      createdAt: endedAt - 1000,
      endedAt,
    },
    video: { path, format: 'mp4', fileName: `${keyOf(n)}.mp4` },
    screenshot: Buffer.from('jpeg'),
  });
}

const kept = async () => (await recordings.list()).map((record) => record.key);

describe('local recordings', () => {
  it('moves the files in and lists sessions newest first', async () => {
    await keep(1, T0, 100);
    await keep(2, T0 + 1000, 200);
    expect(existsSync(join(root, 'video-1.mp4'))).toBe(false);
    expect(await kept()).toEqual([keyOf(2), keyOf(1)]);
    expect(await recordings.recorded(keyOf(1))).toMatchObject({
      user: 'alice',
      video: { size: 100, format: 'mp4' },
      screenshot: true,
    });
    expect(await recordings.usage()).toMatchObject({
      bytes: 300,
      sessions: 2,
      maxBytes: 3000,
      retentionMs: 2 * HOUR,
    });
  });

  it('removes what ended longer ago than the retention', async () => {
    await keep(1, T0, 100);
    await keep(2, T0 + HOUR, 100);
    expect(await recordings.prune(T0 + 2 * HOUR - 1)).toBe(0);
    expect(await recordings.prune(T0 + 2 * HOUR)).toBe(1);
    expect(await kept()).toEqual([keyOf(2)]);
    expect(existsSync(join(root, 'kept', keyOf(1)))).toBe(false);
  });

  it('removes the oldest sessions first once the size cap is passed', async () => {
    await keep(1, T0, 1000);
    await keep(2, T0 + 1, 1000);
    await keep(3, T0 + 2, 1000);
    expect(await kept()).toEqual([keyOf(3), keyOf(2), keyOf(1)]);
    await keep(4, T0 + 3, 1500);
    expect(await kept()).toEqual([keyOf(4), keyOf(3)]);
    expect((await recordings.usage()).bytes).toBe(2500);
  });

  it('never takes a name that is not a session key as a path', async () => {
    expect(await recordings.recorded('../kept')).toBeUndefined();
    await expect(
      recordings.keep({
        session: {
          key: '../../x',
          user: 'a',
          pool: 'local',
          browserName: 'c',
          browserVersion: '1',
          createdAt: 0,
        },
      }),
    ).rejects.toThrow(/not a session key/);
  });
});
