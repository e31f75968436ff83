/** Whether a path lies inside a session's folder, on the real file system: `..` and links cannot lead out. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, sessionFolderContext } from '../../../functions/pools/local/session-folder-bounds';

let root: string;
let folder: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gridgate-bounds-test-'));
  folder = join(root, 'session');
  outside = join(root, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('a session folder’s bounds', () => {
  it('holds the folder itself and paths under it, made yet or not', async () => {
    expect(await isInside(folder, folder)).toBe(true);
    expect(await isInside(folder, join(folder, 'downloads', 'new', 'deeper'))).toBe(true);
    expect(await isInside(join(root, 'not-made-yet'), join(root, 'not-made-yet', 'downloads'))).toBe(true);
  });

  it('does not hold a path that climbs out with .., nor a sibling whose name starts the same', async () => {
    expect(await isInside(folder, `${folder}/downloads/../../outside`)).toBe(false);
    expect(await isInside(folder, `${folder}-evil/downloads`)).toBe(false);
    expect(await isInside(folder, '/')).toBe(false);
  });

  it('does not hold a path through a link planted inside that leads out, or a dangling one', async () => {
    symlinkSync(outside, join(folder, 'planted'));
    expect(await isInside(folder, join(folder, 'planted'))).toBe(false);
    expect(await isInside(folder, join(folder, 'planted', 'new'))).toBe(false);
    symlinkSync(join(root, 'nowhere-yet'), join(folder, 'dangling'));
    expect(await isInside(folder, join(folder, 'dangling'))).toBe(false);
    expect(await isInside(folder, join(folder, 'dangling', 'file'))).toBe(false);
  });

  it('holds a path by a link to the folder itself, as the browser would reach it', async () => {
    symlinkSync(folder, join(root, 'alias'));
    expect(await isInside(folder, join(root, 'alias', 'downloads'))).toBe(true);
  });

  it('allows nothing for a handle that names no folder', async () => {
    const context = sessionFolderContext('../../etc');
    expect(await context.inside('/')).toBe(false);
    expect(await context.inside(tmpdir())).toBe(false);
  });
});
