/**
 * What the router Lambda's asset holds, read from esbuild's metafile of the deployed build
 * (router-bundle-options.ts): the Kubernetes client serves only eks pools that name a kubeconfig, which the
 * Node server runs (pools/eks/eks-kubeconfig.ts); an eks pool behind the router signs EKS tokens itself.
 * Bundled, the client would be megabytes in the asset and, imported from a statically reached module, in
 * every cold start.
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
