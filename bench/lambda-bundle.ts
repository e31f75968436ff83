/**
 * The router Lambda's bundle: esbuild builds it with the options the CDK app deploys it with
 * (functions/entry/router-bundle-options.ts: ESM, node22, minified, split into chunks) twice, with
 * the AWS SDK bundled and left to the runtime, and reports each bundle's size and its init time: how
 * long a fresh `node` takes to import it (module evaluation and the handler's wiring, process start-up
 * excluded), the median of several processes. Size is told twice: what a cold start loads (the entry
 * chunk and every chunk it imports statically) and the whole asset (with the chunks loaded later, e.g.
 * ECS at the first new session). Each bundle then answers real requests (lambda-bundle-smoke.ts), and
 * esbuild's analysis of it is written beside it (analysis.txt).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { analyzeMetafile, build, type Metafile } from 'esbuild';
import { routerBundleOptions } from '../functions/entry/router-bundle-options';
import { type SmokeResult, smokeProblem } from './lambda-bundle-smoke';
import { type Summary, summarize } from './stats';

const run = promisify(execFile);

export const LAMBDA_TARGETS = { bundleBytes: 1024 * 1024, initMs: 250 } as const;

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
  /** The entry chunk and the chunks it imports statically: what a cold start loads. */
  bytes: number;
  gzipBytes: number;
  /** Every file of the asset, chunks loaded later included. */
  totalBytes: number;
  totalGzipBytes: number;
  files: number;
  /** Import time in a fresh process, one sample per process. */
  initMs: Summary;
  /** The largest contributors to what a cold start loads, by bytes in the output. */
  largest: { input: string; bytes: number }[];
  /** esbuild's analyzeMetafile of the whole asset, also written to <outdir>/analysis.txt. */
  analysisFile: string;
  smoke: SmokeResult;
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

export async function measureLambdaBundle(runs = 10): Promise<LambdaBundleReport> {
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
    const outdir = new URL(`router-${index}/`, directory).pathname;
    const options = routerBundleOptions(outdir);
    const external = [...(options.external ?? []), ...variant.external];
    const result = await build({ ...options, external, logLevel: 'silent' });
    const entry = entryOutput(result.metafile);
    const loaded = staticClosure(result.metafile, entry);
    const all = Object.keys(result.metafile.outputs);
    const analysisFile = new URL('analysis.txt', new URL(`router-${index}/`, directory)).pathname;
    await writeFile(analysisFile, await analyzeMetafile(result.metafile));
    const smoke = await smokeTest(resolve(entry), env);
    const problem = smokeProblem(smoke);
    if (problem) throw new Error(`the ${variant.name} bundle does not work: ${problem}`);
    variants.push({
      name: variant.name,
      ...(await sizes(loaded, result.metafile, 'bytes', 'gzipBytes')),
      ...(await sizes(all, result.metafile, 'totalBytes', 'totalGzipBytes')),
      files: all.length,
      initMs: summarize(await importTimes(resolve(entry), env, runs)),
      largest: largestInputs(result.metafile, loaded),
      analysisFile,
      smoke,
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

/** The output file of the router entry (dynamic imports are entry points of their own too). */
function entryOutput(metafile: Metafile): string {
  const found = Object.entries(metafile.outputs).find(([, output]) =>
    output.entryPoint?.endsWith('functions/entry/router-lambda.ts'),
  );
  if (!found) throw new Error('esbuild wrote no router-lambda output');
  return found[0];
}

/** The entry and every chunk it imports statically, however deep: what importing the entry loads. */
function staticClosure(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { path, kind, external } of metafile.outputs[file]?.imports ?? []) {
      if (kind === 'import-statement' && !external) pending.push(path);
    }
  }
  return [...seen];
}

async function sizes<B extends string, G extends string>(
  files: string[],
  metafile: Metafile,
  bytesKey: B,
  gzipKey: G,
): Promise<Record<B | G, number>> {
  let bytes = 0;
  let gzipBytes = 0;
  for (const file of files) {
    bytes += metafile.outputs[file]?.bytes ?? 0;
    gzipBytes += gzipSync(await readFile(file)).length;
  }
  return { [bytesKey]: bytes, [gzipKey]: gzipBytes } as Record<B | G, number>;
}

/** Bytes in the given outputs per package (node_modules/<name>) or per own file. */
function largestInputs(metafile: Metafile, files: string[], count = 6): { input: string; bytes: number }[] {
  const totals = new Map<string, number>();
  for (const file of files) {
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
      const name = /^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'gridgate (functions/)';
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([input, bytes]) => ({ input, bytes }));
}

const SMOKE_MARK = 'GRIDGATE_SMOKE ';

/** lambda-bundle-smoke.ts in a process of its own (it sets env and globals); its JSON log lines are skipped. */
async function smokeTest(bundle: string, env: NodeJS.ProcessEnv): Promise<SmokeResult> {
  const smoke = new URL('./lambda-bundle-smoke.ts', import.meta.url).pathname;
  const script = `
import { smokeRouterBundle } from ${JSON.stringify(smoke)};
const result = await smokeRouterBundle(${JSON.stringify(bundle)});
process.stdout.write('\\n${SMOKE_MARK}' + JSON.stringify(result) + '\\n');
process.exit(0);
`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env,
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((l) => l.startsWith(SMOKE_MARK));
  if (!line) throw new Error(`the bundle smoke test printed no result:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice(SMOKE_MARK.length)) as SmokeResult;
}

export function formatLambdaBundleReport(report: LambdaBundleReport): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const lines = [
    `Router Lambda bundle (functions/entry/router-bundle-options.ts: esm, node22, minified, split; size = what a cold start loads; init = import in a fresh node, median of ${report.runs})`,
    `  an empty module imports in ${report.emptyImportMs.median.toFixed(1)} ms (not subtracted)`,
  ];
  for (const variant of report.variants) {
    const { bytes, gzipBytes, totalBytes, totalGzipBytes, files, initMs } = variant;
    lines.push(
      `  ${variant.name}: ${kib(bytes)} (${kib(gzipBytes)} gzipped) ${verdict(bytes < report.targets.bundleBytes)} < ${kib(report.targets.bundleBytes)};` +
        ` init p50 ${initMs.median.toFixed(0)} ms (min ${initMs.min.toFixed(0)}, max ${initMs.max.toFixed(0)}) ${verdict(initMs.median < report.targets.initMs)} < ${report.targets.initMs} ms`,
      `    whole asset ${kib(totalBytes)} (${kib(totalGzipBytes)} gzipped) in ${files} files; smoke: new session, GET /status and DELETE answered ${variant.smoke.newSession}/${variant.smoke.status}/${variant.smoke.deleted}; analysis in ${variant.analysisFile}`,
      `    largest: ${variant.largest.map(({ input, bytes: b }) => `${input} ${kib(b)}`).join(', ')}`,
    );
  }
  return lines.join('\n');
}
