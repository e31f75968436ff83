/**
 * The router Lambda's bundle: esbuild builds functions/entry/router-lambda.ts as a deployment would
 * (ESM, node22, minified, tree-shaken) twice, with the AWS SDK bundled and left to the runtime, and
 * reports each bundle's size and its init time: how long a fresh `node` takes to import it (module
 * evaluation and the handler's wiring, process start-up excluded), the median of several processes.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { type Summary, summarize } from './stats';

const run = promisify(execFile);

export const LAMBDA_TARGETS = { bundleBytes: 1024 * 1024, initMs: 250 } as const;

/**
 * CJS dependencies (undici, the SDK's) call require() on Node built-ins; an ESM bundle has no
 * require, so one is made for it. Without this the bundle fails at import: "Dynamic require of
 * node:assert is not supported".
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __gridgateCreateRequire } from 'node:module'; const require = __gridgateCreateRequire(import.meta.url);";

export interface BundleVariant {
  name: string;
  /** What is left out of the bundle for the runtime to provide. */
  external: string[];
}

export const VARIANTS: BundleVariant[] = [
  { name: 'AWS SDK bundled', external: [] },
  // The Lambda Node.js 22 runtime ships SDK v3: smaller, but its version is the runtime's, not ours.
  { name: 'AWS SDK from the runtime', external: ['@aws-sdk/*'] },
];

export interface BundleMeasurement {
  name: string;
  bytes: number;
  gzipBytes: number;
  /** Import time in a fresh process, one sample per process. */
  initMs: Summary;
  /** The largest contributors, by bytes in the output. */
  largest: { input: string; bytes: number }[];
}

export interface LambdaBundleReport {
  runs: number;
  /** A fresh process importing an empty module: what the import measurement itself costs. */
  emptyImportMs: Summary;
  variants: BundleMeasurement[];
  targets: typeof LAMBDA_TARGETS;
}

// What a router needs at init: a bundled config with a hub pool and the DynamoDB store, a secret.
// Nothing at init talks to AWS; the fake region and credentials make sure nothing could.
const CONFIG = {
  browsers: { chrome: { versions: { stable: { pools: ['hub'] } } } },
  pools: { hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' } },
  store: { kind: 'dynamodb', table: 'gridgate-bench' },
};

// Stands in for the runtime's global, which the entry uses at import (streamifyResponse).
const IMPORT_SCRIPT = (file: string) => `
globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const started = performance.now();
const module = await import(${JSON.stringify(file)});
const ms = performance.now() - started;
if (typeof module.handler !== 'function') throw new Error('the bundle exports no handler');
process.stdout.write(JSON.stringify({ ms }));
`;

export async function measureLambdaBundle(runs = 7): Promise<LambdaBundleReport> {
  // Inside the repository so a bundle that leaves the SDK out finds it in node_modules, as it would
  // find the runtime's. .tmp/ is git-ignored.
  const directory = new URL('../.tmp/lambda-bundle/', import.meta.url);
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const configFile = new URL('gridgate.json', directory).pathname;
  await writeFile(configFile, JSON.stringify(CONFIG));
  const env = {
    ...process.env,
    GRIDGATE_CONFIG: configFile,
    GRIDGATE_SECRET: 'bench-secret-bench-secret-bench-secret!',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_EC2_METADATA_DISABLED: 'true',
    // The SDK warns on Node 20 (this machine); Lambda runs 22.
    NODE_NO_WARNINGS: '1',
  };
  const empty = new URL('empty.mjs', directory).pathname;
  await writeFile(empty, 'export const handler = () => {};\n');
  const emptyImportMs = summarize(await importTimes(empty, env, runs));
  const variants: BundleMeasurement[] = [];
  for (const [index, variant] of VARIANTS.entries()) {
    const outfile = new URL(`router-${index}.mjs`, directory).pathname;
    const result = await build({
      entryPoints: [new URL('../functions/entry/router-lambda.ts', import.meta.url).pathname],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      minify: true,
      treeShaking: true,
      external: variant.external,
      banner: { js: ESM_REQUIRE_BANNER },
      metafile: true,
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0];
    const code = await import('node:fs/promises').then((fs) => fs.readFile(outfile));
    variants.push({
      name: variant.name,
      bytes: output?.bytes ?? code.length,
      gzipBytes: gzipSync(code).length,
      initMs: summarize(await importTimes(outfile, env, runs)),
      largest: largestInputs(result.metafile),
    });
  }
  return { runs, emptyImportMs, variants, targets: LAMBDA_TARGETS };
}

/** One fresh `node` per sample, run one after another so they do not compete for the two cores. */
async function importTimes(file: string, env: NodeJS.ProcessEnv, runs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT(file)], {
      env,
      timeout: 30_000,
    });
    samples.push((JSON.parse(stdout) as { ms: number }).ms);
  }
  return samples;
}

/** Bytes in the output per package (node_modules/<name>) or per own file. */
function largestInputs(metafile: Metafile, count = 6): { input: string; bytes: number }[] {
  const output = Object.values(metafile.outputs)[0];
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = /^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'gridgate (functions/)';
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([input, bytes]) => ({ input, bytes }));
}

export function formatLambdaBundleReport(report: LambdaBundleReport): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const lines = [
    `Router Lambda bundle (esbuild, esm, node22, minified; init = import in a fresh node, median of ${report.runs})`,
    `  an empty module imports in ${report.emptyImportMs.median.toFixed(1)} ms (not subtracted)`,
  ];
  for (const variant of report.variants) {
    const { bytes, gzipBytes, initMs } = variant;
    lines.push(
      `  ${variant.name}: ${kib(bytes)} (${kib(gzipBytes)} gzipped) ${verdict(bytes < report.targets.bundleBytes)} < ${kib(report.targets.bundleBytes)};` +
        ` init p50 ${initMs.median.toFixed(0)} ms (min ${initMs.min.toFixed(0)}, max ${initMs.max.toFixed(0)}) ${verdict(initMs.median < report.targets.initMs)} < ${report.targets.initMs} ms`,
      `    largest: ${variant.largest.map(({ input, bytes: b }) => `${input} ${kib(b)}`).join(', ')}`,
    );
  }
  return lines.join('\n');
}
