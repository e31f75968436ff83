/**
 * What the cleanup Lambda's asset holds, and evaluates at its start, read from esbuild's metafile of its
 * bundle built as infra/grid-function.ts has the CDK build it (one ESM file, JOB_LAMBDA_EXTERNALS left out).
 * No part of the Kubernetes client: the cleanup reaches pods as the router does, with EKS tokens. And of each
 * kind, at start, only what every entry reads through the registry (its definition and config side): a kind's
 * part of the cleanup (its fleet and SDK: the ECS client; the pod API and the EKS token signer) is reached only
 * by the import in its `cleanup.load()`, which a bundle evaluates only when called, and the cleanup calls it
 * only for a config with pools of that kind: an ecs-only stack never evaluates eks code, nor the reverse.
 */
import { build, type Metafile } from 'esbuild';
import { expect, it } from 'vitest';
import { JOB_LAMBDA_EXTERNALS } from '../../functions/entry/lambda-bundle-externals';

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

const bundled = () =>
  build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    external: JOB_LAMBDA_EXTERNALS,
    outdir: 'unwritten',
    write: false,
    metafile: true,
    logLevel: 'error',
  });

it('bundles no part of @kubernetes/client-node into the cleanup Lambda', async () => {
  const { metafile } = await bundled();
  const inputs = Object.keys(metafile.inputs);

  // Its own files are listed, so an empty list cannot pass.
  expect(inputs).toContain(ENTRY);
  expect(inputs.filter((input) => input.includes('@kubernetes/client-node'))).toEqual([]);
}, 60_000);

it("evaluates no kind's cleanup at start: its fleet and SDK load with its cleanup.load()", async () => {
  const { metafile } = await bundled();
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
