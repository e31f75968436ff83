/**
 * What the cleanup Lambda evaluates at its start, read from esbuild's metafile of its bundle, built as
 * infra/grid-function.ts has the CDK build it (one ESM file, the Lambda runtime's AWS SDK left out): of each
 * kind, only what every entry reads through the registry (its definition and config side). A kind's part of
 * the cleanup (its fleet, its SDK: the ECS client; the pod API and the EKS token signer) is reached only by
 * the import in its `cleanup.load()`, which an esbuild bundle evaluates only when called, and the cleanup calls
 * it only for a config with pools of that kind: an ecs-only stack never evaluates eks code, nor the reverse.
 */
import { build, type Metafile } from 'esbuild';
import { expect, it } from 'vitest';

const ENTRY = 'functions/entry/cleanup-lambda.ts';

/** The bundled files `from` reaches by static imports alone (import statements, require calls). */
function staticallyReached(metafile: Metafile, from: string): Set<string> {
  const reached = new Set<string>();
  const next = [from];
  for (let file = next.pop(); file !== undefined; file = next.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (imported.kind !== 'dynamic-import' && !imported.external) next.push(imported.path);
    }
  }
  return reached;
}

const ofKinds = (files: Iterable<string>) =>
  [...files].filter((file) => /^functions\/pools\/(ecs|eks)\//.test(file));

it("evaluates no kind's cleanup at start: its fleet and SDK load with its cleanup.load()", async () => {
  const { metafile } = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    outdir: 'unwritten',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const atStart = staticallyReached(metafile, ENTRY);

  // In the bundle, behind their kinds' load(): so the paths looked for below are the right ones.
  for (const part of ['functions/pools/ecs/ecs-cleanup.ts', 'functions/pools/eks/eks-cleanup.ts']) {
    expect(Object.keys(metafile.inputs)).toContain(part);
  }
  expect(atStart.has('functions/entry/aws-cleanup.ts')).toBe(true);
  // Of the kinds' folders, the start reaches what the registry does (the definitions), and nothing more.
  expect(ofKinds(atStart).sort()).toEqual(
    ofKinds(staticallyReached(metafile, 'functions/pools/index.ts')).sort(),
  );
  for (const part of ['eks-cleanup', 'eks-fleet', 'eks-pod-apis', 'eks-token', 'pod-log-keeper']) {
    expect(atStart.has(`functions/pools/eks/${part}.ts`), part).toBe(false);
  }
  for (const part of ['ecs-cleanup', 'ecs-fleet', 'ecs-warm-pool']) {
    expect(atStart.has(`functions/pools/ecs/${part}.ts`), part).toBe(false);
  }
}, 60_000);
