/**
 * The router bundle as deployed, under the real Lambda runtime interface client, given an eks pool with
 * `auth: "kubeconfig"`. The kubeconfig client (@kubernetes/client-node) is left out of the Lambdas' assets
 * (entry/lambda-bundle-externals.ts), so such a pool could never start a pod there: the environment refuses the
 * config at init, naming the key and the auth that works on AWS, instead of failing the first session with a
 * missing module. The store is dynalite, so a session that got as far as a pod would have reached the launcher.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionUrlEvent } from '../lambda/lambda-events';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { RealLambda } from '../support/real-lambda';

let lambda: RealLambda;
let dynamo: DynaliteServer;
let table: SessionTableUnderTest;

beforeAll(async () => {
  dynamo = await startDynalite();
  table = await dynamo.createSessionTable();
  const config = join(mkdtempSync(join(tmpdir(), 'gridgate-kubeconfig-lambda-')), 'gridgate.json');
  writeFileSync(
    config,
    JSON.stringify({
      browsers: { chrome: { versions: { stable: { pools: ['pods'] } } } },
      pools: { pods: { kind: 'eks', cluster: 'platform', auth: 'kubeconfig', networks: ['10.40.0.0/16'] } },
      store: { kind: 'dynamodb', table: table.table },
    }),
  );
  lambda = await RealLambda.start({
    GRIDGATE_CONFIG: config,
    GRIDGATE_SECRET: 'kubeconfig-refused-secret-32-bytes!!',
    AWS_ACCESS_KEY_ID: 'AKIDKUBECONFIG',
    AWS_SECRET_ACCESS_KEY: 'kubeconfig',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  });
}, 10 * 60_000);

afterAll(async () => {
  await lambda?.close();
  await table?.close();
  await dynamo?.close();
});

it('refuses an eks pool with kubeconfig auth at init, naming the key, never a missing module', async () => {
  const newSession = functionUrlEvent({
    method: 'POST',
    path: '/session',
    body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
  });
  // An environment whose init failed takes no invocation: the runtime reports the error and exits.
  const answered = await lambda.invoke(newSession, 30_000).then(
    (invocation) => `answered: ${invocation.body.toString('utf8')}`,
    (error: Error) => `not answered: ${error.message}`,
  );
  expect(lambda.api.initErrors, answered).toHaveLength(1);
  const [refusal] = lambda.api.initErrors;
  expect(refusal?.body).toMatchObject({
    errorType: 'ConfigError',
    errorMessage: expect.stringContaining(
      'pools.pods.auth: must be "aws" on AWS (the functions sign EKS tokens with their roles;',
    ),
  });
  expect(answered).toMatch(/^not answered/);
  expect(`${answered}\n${lambda.log()}`).not.toMatch(
    /Cannot find module|ERR_MODULE_NOT_FOUND|module not found/i,
  );
  expect(lambda.api.invocations).toEqual([]);
  expect(lambda.connections().filter((entry) => !entry.allowed)).toEqual([]);
});
