/**
 * The router Lambda as deployed: built with the CDK app's esbuild options (router-bundle-options.ts:
 * split chunks, the SDK's ES modules, the lean undici) and answering real requests, so a bundle that
 * builds but breaks at run time (a missing undici name, a chunk that does not load) fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, expect, it, vi } from 'vitest';
import { smokeRouterBundle } from '../../bench/lambda-bundle-smoke';
import { routerBundleOptions } from '../../functions/entry/router-bundle-options';

const outdir = mkdtempSync(join(tmpdir(), 'gridgate-router-bundle-'));
const savedEnv = { ...process.env };

afterAll(() => {
  vi.restoreAllMocks();
  process.env = savedEnv;
  rmSync(outdir, { recursive: true, force: true });
});

it('builds a bundle that creates a session, answers GET /status and ends the session', async () => {
  const result = await build(routerBundleOptions(outdir));
  const entry = Object.entries(result.metafile.outputs).find(([, output]) =>
    output.entryPoint?.endsWith('functions/entry/router-lambda.ts'),
  );
  expect(entry?.[0]).toMatch(/router-lambda\.mjs$/);
  // The JSON log lines are the entry's; they are not what this test reads.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

  const smoke = await smokeRouterBundle(join(outdir, 'router-lambda.mjs'));

  expect(smoke).toMatchObject({ newSession: 200, status: 200, ready: true, deleted: 200 });
  expect(smoke.hubSaw).toEqual([
    expect.stringMatching(/^POST \/session$/),
    expect.stringMatching(/^DELETE \/session\//),
  ]);
}, 60_000);
