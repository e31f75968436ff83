/**
 * What the router Lambda's asset holds, read from esbuild's metafile of the deployed build
 * (router-bundle-options.ts): the Kubernetes client serves only eks pools that name a kubeconfig, which the
 * Node server runs (pools/eks/eks-kubeconfig.ts); an eks pool behind the router signs EKS tokens itself.
 * Bundled, the client would be megabytes in the asset and, imported from a statically reached module, in
 * every cold start. Nor does it hold the runtimes of the kinds only the Node server runs (local, container),
 * which their kinds' load() imports and the router never calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';
import { routerBundleOptions } from '../../functions/entry/router-bundle-options';

const outdir = mkdtempSync(join(tmpdir(), 'gridgate-router-contents-'));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

it('bundles no part of @kubernetes/client-node into the router Lambda', async () => {
  const { metafile } = await build({ ...routerBundleOptions(outdir), write: false });
  const inputs = Object.keys(metafile.inputs);

  // The metafile lists every bundled file: the router's own are there, so an empty list cannot pass.
  expect(inputs.some((input) => input.endsWith('functions/entry/router-lambda.ts'))).toBe(true);
  expect(inputs.filter((input) => input.includes('@kubernetes/client-node'))).toEqual([]);
}, 60_000);

it('leaves out the runtimes of the kinds that run on the Node server only (local, container)', async () => {
  const { metafile } = await build({ ...routerBundleOptions(outdir), write: false });
  const inputs = Object.keys(metafile.inputs);

  // The kinds' definitions are bundled (the router reads their traits), so the paths are the ones to look for.
  expect(inputs.some((input) => input.endsWith('functions/pools/local/local-pool-kind.ts'))).toBe(true);
  expect(
    inputs.filter((input) => /functions\/pools\/(local|container)\/\w+-pool-runtime\.ts$/.test(input)),
  ).toEqual([]);
}, 60_000);
