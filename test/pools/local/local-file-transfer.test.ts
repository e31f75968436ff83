/** Uploads and managed downloads of local sessions, on the real file system: hostile zips write nothing. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { WebDriverError } from '../../../functions/core/errors';
import { LocalFileTransfer } from '../../../functions/pools/local/local-file-transfer';
import { SessionDirectories } from '../../../functions/pools/local/session-directories';
import { type ZipEntry, zipBytes } from '../../support/zip-bytes';

const MB = 1024 * 1024;
const LIMIT = 4 * MB;

let root: string;
let directories: SessionDirectories;
let running: Set<string>;
let files: LocalFileTransfer;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gridgate-transfer-test-'));
  directories = new SessionDirectories(root);
  running = new Set(['101']);
  directories.open('101');
  files = new LocalFileTransfer(directories, (handle) => running.has(handle));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every path under the test's root, so a test sees anything written anywhere in it. */
function everything(directory = root): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort();
}

async function refusal(zip: Buffer, maxBytes = LIMIT): Promise<WebDriverError> {
  const error = await files.upload('101', zip, maxBytes).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WebDriverError);
  return error as WebDriverError;
}

/** Refused as invalid argument, and nothing but the session's empty uploads directory is left. */
async function expectRefused(entries: ZipEntry[] | Buffer, message: RegExp, status = 400) {
  const error = await refusal(Buffer.isBuffer(entries) ? entries : zipBytes(entries));
  expect(error.code).toBe('invalid argument');
  expect(error.status).toBe(status);
  expect(error.message).toMatch(message);
  const left = everything();
  expect(left.filter((path) => !/^gridgate-session-\d+-\w+(\/uploads)?$/.test(path))).toEqual([]);
}

describe('upload (POST /se/file) into a local session', () => {
  it('unpacks the one file of the zip into a directory of its own in the session’s uploads', async () => {
    const path = await files.upload(
      '101',
      zipBytes([{ name: 'report.txt', data: 'hello', deflate: true }]),
      LIMIT,
    );
    expect(readFileSync(path, 'utf8')).toBe('hello');
    expect(path).toMatch(
      new RegExp(`^${root}/gridgate-session-${process.pid}-\\w+/uploads/upload-\\w+/report.txt$`),
    );
    // The same name twice: each upload gets its own directory, neither overwrites the other.
    const again = await files.upload('101', zipBytes([{ name: 'report.txt', data: 'again' }]), LIMIT);
    expect(again).not.toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('hello');
    expect(readFileSync(again, 'utf8')).toBe('again');
  });

  it('refuses what is not a zip', async () => {
    await expectRefused(Buffer.from('this is not a zip at all, just some text'), /not a zip file/);
  });

  it('refuses an empty zip and one with several files', async () => {
    await expectRefused([], /holds no file/);
    await expectRefused(
      [
        { name: 'a.txt', data: 'a' },
        { name: 'b.txt', data: 'b' },
      ],
      /more than one file/,
    );
  });

  it('refuses ../ traversal, absolute names, backslashes and names inside folders', async () => {
    await expectRefused([{ name: '../escaped.txt', data: 'x' }], /invalid relative path/);
    await expectRefused([{ name: 'a/../../escaped.txt', data: 'x' }], /invalid relative path/);
    await expectRefused([{ name: '/tmp/escaped.txt', data: 'x' }], /absolute path/);
    await expectRefused([{ name: '..\\escaped.txt', data: 'x' }], /invalid characters|backslash/i);
    await expectRefused([{ name: 'folder/inside.txt', data: 'x' }], /inside a folder/);
    await expectRefused([{ name: 'folder/', data: '' }], /is a folder/);
    expect(readdirSync(dirname(root)).filter((name) => name === 'escaped.txt')).toEqual([]);
  });

  it('refuses a symbolic link, a device and an encrypted file', async () => {
    await expectRefused([{ name: 'link', data: '/etc/passwd', mode: 0o120777 }], /not a plain file/);
    await expectRefused([{ name: 'device', data: '', mode: 0o020666 }], /not a plain file/);
    await expectRefused([{ name: 'secret.txt', data: 'x', deflate: true, encrypted: true }], /encrypted/);
  });

  it('refuses a zip bomb by the bytes it inflates to, whatever its headers claim', async () => {
    const zeros = Buffer.alloc(LIMIT + MB);
    // Honest headers: refused before inflating anything.
    await expectRefused([{ name: 'bomb.bin', data: zeros, deflate: true }], /unpacks to more than/, 413);
    // Headers that claim 10 bytes: counted while inflating, refused, and the partial file removed.
    await expectRefused(
      [{ name: 'liar.bin', data: zeros, deflate: true, claimedSize: 10 }],
      /unpacks to more than/,
      413,
    );
  });

  it('refuses a zip whose data is corrupt, and removes what it began to write', async () => {
    const zip = zipBytes([{ name: 'broken.txt', data: 'hello world, '.repeat(2000), deflate: true }]);
    zip.fill(0xff, 30 + 'broken.txt'.length + 4, 30 + 'broken.txt'.length + 12); // inside the deflate data
    await expectRefused(zip, /corrupt/);
  });

  it('never writes through a link planted where the file would go', async () => {
    // The upload directory is new and random, so nothing can be planted there; O_EXCL|O_NOFOLLOW backs it up.
    const target = join(root, 'outside.txt');
    writeFileSync(target, 'untouched');
    const uploads = await directories.make('101', 'uploads');
    await symlink(target, join(uploads, 'planted.txt'));
    await files.upload('101', zipBytes([{ name: 'planted.txt', data: 'overwritten?' }]), LIMIT);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });

  it('answers invalid session id for a browser that is not running, and makes nothing for it', async () => {
    running.delete('101');
    const error = await refusal(zipBytes([{ name: 'a.txt', data: 'a' }]));
    expect(error.code).toBe('invalid session id');
    running.add('999'); // running, but never opened: no directory can be made for it
    const stray = await files.upload('999', zipBytes([{ name: 'a.txt', data: 'a' }]), LIMIT).catch((e) => e);
    expect((stray as WebDriverError).code).toBe('invalid session id');
    expect(everything()).toEqual([]);
  });

  it('is gone with the session', async () => {
    const path = await files.upload('101', zipBytes([{ name: 'a.txt', data: 'a' }]), LIMIT);
    await directories.remove('101');
    expect(() => statSync(path)).toThrow();
    expect(everything()).toEqual([]);
  });
});

describe('managed downloads (/se/files) of a local session', () => {
  async function downloadsOf(handle: string): Promise<string> {
    return directories.make(handle, 'downloads');
  }

  it('refuses with unsupported operation when the session did not enable them', async () => {
    const error = (await files.downloads('101').catch((e) => e)) as WebDriverError;
    expect(error.code).toBe('unsupported operation');
    expect(error.message).toContain('"se:downloadsEnabled": true');
  });

  it('lists plain files only, zips one by its exact name, and empties the directory', async () => {
    const downloads = await downloadsOf('101');
    await writeFile(join(downloads, 'report.csv'), 'a,b\n1,2\n');
    await mkdir(join(downloads, 'folder'));
    await symlink('/etc/passwd', join(downloads, 'link'));
    const listed = await files.downloads('101');
    expect(listed.map((file) => file.name)).toEqual(['report.csv']);
    expect(listed[0]).toMatchObject({ size: 8 });
    expect(listed[0]?.lastModifiedTime).toBeGreaterThan(0);

    expect(await text((await files.download('101', 'report.csv')).bytes())).toBe('a,b\n1,2\n');
    const zip = Buffer.concat(await (await files.download('101', 'report.csv')).zipped().toArray());
    const archive = await yauzl.fromBufferPromise(zip);
    const names: string[] = [];
    for await (const entry of archive.eachEntry()) names.push(entry.fileName);
    expect(names).toEqual(['report.csv']);

    for (const name of ['link', 'folder', '../report.csv', `${downloads}/report.csv`, 'missing.txt']) {
      const error = (await files.download('101', name).catch((e) => e)) as WebDriverError;
      expect(error.code).toBe('invalid argument');
      expect(error.message).toContain('there are: "report.csv"');
    }

    await files.deleteDownloads('101');
    expect(await readdir(downloads)).toEqual([]);
    expect(await files.downloads('101')).toEqual([]);
  });

  it('serves a found file whole though the browser renames or removes it meanwhile, as Chromium does with a finished download', async () => {
    const downloads = await downloadsOf('101');
    // Chromium writes a download as ".org.chromium.Chromium.XXXXXX" and renames it once complete.
    await writeFile(join(downloads, '.org.chromium.Chromium.a1b2c3'), 'x'.repeat(100_000));
    const asBytes = await files.download('101', '.org.chromium.Chromium.a1b2c3');
    const asZip = await files.download('101', '.org.chromium.Chromium.a1b2c3');
    await rename(join(downloads, '.org.chromium.Chromium.a1b2c3'), join(downloads, 'data.bin'));
    await rm(join(downloads, 'data.bin'));

    expect((await text(asBytes.bytes())).length).toBe(100_000);
    const archive = await yauzl.fromBufferPromise(Buffer.concat(await asZip.zipped().toArray()));
    const entries: string[] = [];
    for await (const entry of archive.eachEntry()) {
      entries.push(entry.fileName);
      expect((await text(await archive.openReadStreamPromise(entry))).length).toBe(100_000);
    }
    expect(entries).toEqual(['.org.chromium.Chromium.a1b2c3']);

    const error = (await files
      .download('101', '.org.chromium.Chromium.a1b2c3')
      .catch((e) => e)) as WebDriverError;
    expect(error.code).toBe('invalid argument');
  });
});
