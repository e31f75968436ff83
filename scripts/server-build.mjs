/**
 * The Node server's production build: functions/entry/node-server.ts bundled by esbuild into
 * dist/server/, run by plain node (no TypeScript loader in the running server: tsx's loader thread
 * alone holds ~35 MiB). Built when missing or older than any source it is made from, so `npm start`
 * on a fresh clone or after a `git pull` runs what the checkout says.
 *
 * Plain JavaScript so that it runs before anything is built. Several processes may build at once (a
 * test suite starting servers in parallel): every file is written under a temporary name and renamed
 * into place, chunks are named by their content, and the entry is written last, so a reader sees
 * either the old build or the whole new one.
 */
import { randomUUID } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_ENTRY = join(root, 'dist/server/node-server.mjs');

/**
 * The V8 flags every process of the server runs with: `npm start` (package.json) and the image's command
 * (Dockerfile) give them to node, worker processes inherit them (node:cluster forks with the primary's),
 * and the tests and benchmarks that start the server pass these. A young generation of at most 2 x 4 MiB
 * instead of V8's 2 x 16: with 1,000 sessions open, ~30 of one process's 127 MiB were the young
 * generation V8 had grown for the allocation of opening them. 4, not 1: at 1 MiB the same bundle spent
 * more CPU per command in every round of an interleaved A/B; at 4 no difference showed (bench/README.md).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4'];

/** What the build is made from: a change to any of these makes it stale. */
const SOURCES = ['functions', 'package-lock.json', 'scripts/server-build.mjs'];

// CJS dependencies (undici, the SDK's) call require() on Node built-ins; an ESM bundle has none.
const ESM_REQUIRE_BANNER =
  "import { createRequire as __gridgateCreateRequire } from 'node:module'; const require = __gridgateCreateRequire(import.meta.url);";

/**
 * chrome-har (the local pools' HAR files) reads its own package.json with a require() of its own making,
 * which no bundler follows: in a bundle it would look beside the bundle and fail. Read as an import, the
 * file is bundled like any JSON.
 */
const packageJsonImports = {
  name: 'package-json-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]chrome-har[\\/]index\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const read = "const version = require('./package.json').version;";
      if (!source.includes(read)) throw new Error(`chrome-har no longer reads its version as ${read}`);
      const contents = source.replace(
        read,
        "import __chromeHarPackage from './package.json';\nconst version = __chromeHarPackage.version;",
      );
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The production build's esbuild options for `entryPoints` into `outdir` (the scale benchmark bundles its
 * own entry with them, so that it measures what the server loads). Files are returned, not written.
 */
export function serverBuildOptions(entryPoints, outdir) {
  return {
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    // The AWS SDK and the Kubernetes client sit in chunks loaded only by the pools and stores that use
    // them, so a laptop's server never parses them.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    // Only the parts of undici the server uses (see undici-lean.ts): all of undici is ~1 MiB of source.
    alias: { undici: join(root, 'functions/entry/undici-lean.ts') },
    banner: { js: ESM_REQUIRE_BANNER },
    plugins: [packageJsonImports],
    // Kept readable: stack traces in the server's logs name real functions.
    minify: false,
    // Non-ASCII characters in strings and regular expressions written as escapes (see asciiOnly).
    charset: 'ascii',
    sourcemap: false,
    write: false,
    logLevel: 'error',
  };
}

/** Builds dist/server/ unless it is newer than every source; returns the entry's path. */
export async function ensureServerBuild() {
  if (builtAt() > newestSource()) return SERVER_ENTRY;
  await buildServer(
    {
      'node-server': join(root, 'functions/entry/node-server.ts'),
      // The password-checking thread's code (password-workers.ts looks for it beside the entry).
      'password-check-worker': join(root, 'functions/adapters/htpasswd/password-check-worker.ts'),
    },
    SERVER_ENTRY,
  );
  copyPlainScripts(dirname(SERVER_ENTRY));
  return SERVER_ENTRY;
}

/**
 * The scripts the server runs as they are, in plain node, each in a process of its own (not bundled): a local
 * Playwright session's server (they load the client's own playwright-core), with the `ws` package they speak
 * WebSocket with in playwright/node_modules (the head image holds no node_modules of its own; ws depends on
 * nothing), and any pool kind's (the local kind's listener in a browser's network namespace). Each folder's
 * go beside the entry in a folder of its last name, where functions/adapters/fs/plain-script.ts looks for
 * them in a build.
 */
function plainScriptFolders() {
  const kinds = readdirSync(join(root, 'functions/pools'), { withFileTypes: true }).filter((entry) =>
    entry.isDirectory(),
  );
  return ['functions/servers/node/playwright', ...kinds.map((kind) => `functions/pools/${kind.name}`)];
}

function copyPlainScripts(outdir) {
  for (const folder of plainScriptFolders()) {
    const from = join(root, folder);
    for (const name of readdirSync(from).filter((file) => file.endsWith('.cjs'))) {
      writeAtomically(join(outdir, basename(folder), name), readFileSync(join(from, name)));
    }
  }
  const ws = dirname(createRequire(import.meta.url).resolve('ws/package.json'));
  cpSync(ws, join(outdir, 'playwright', 'node_modules', 'ws'), { recursive: true });
}

/**
 * Bundles `entryPoints` with the production build's options beside `entry` (one of the files it makes,
 * written last); chunks of earlier builds there are removed.
 */
export async function buildServer(entryPoints, entry) {
  // esbuild is loaded only to build: a server started from a current build never loads it.
  const { build } = await import('esbuild');
  const result = await build(serverBuildOptions(entryPoints, dirname(entry)));
  const last = result.outputFiles.find((file) => file.path === entry);
  for (const file of result.outputFiles) if (file !== last) writeAtomically(file.path, asciiOnly(file));
  if (last) writeAtomically(last.path, asciiOnly(last));
  removeOtherChunks(dirname(entry), new Set(result.outputFiles.map((file) => file.path)));
}

/**
 * The file's text with the non-ASCII characters esbuild leaves (in the comments it keeps; charset 'ascii'
 * escapes those in code) written as \uXXXX. V8 keeps a script's source for as long as the script lives, at
 * one byte a character only when every character fits in Latin-1: three dashes in comments made the
 * entry's 0.9 MB of source take 1.8 MiB in every process.
 */
function asciiOnly(file) {
  const text = file.text;
  if (!/[\u0080-\uffff]/.test(text)) return file.contents;
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Chunks of earlier builds: content-named, so they pile up unless removed. */
function removeOtherChunks(outdir, current) {
  const chunks = join(outdir, 'chunks');
  for (const name of readdirSync(chunks)) {
    const path = join(chunks, name);
    if (!current.has(path) && !name.endsWith('.tmp')) rmSync(path, { force: true });
  }
}

function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

function builtAt() {
  try {
    return statSync(SERVER_ENTRY).mtimeMs;
  } catch {
    return 0;
  }
}

function newestSource() {
  return Math.max(...SOURCES.map((source) => newestUnder(join(root, source))));
}

function newestUnder(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestUnder(join(path, name))));
}

// `npm run build`
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.error(`gridgate: built ${await ensureServerBuild()}`);
}
