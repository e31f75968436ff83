/**
 * The router Lambda's entry as deployed: its module imported with a Lambda environment (bundled
 * config, secret, region), the DynamoDB store talking to dynalite on 127.0.0.1 and a hub pool that is a
 * fake WebDriver endpoint on 127.0.0.1, invoked through the streaming harness.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { StreamingHandler } from '../../functions/servers/lambda/lambda-globals';
import type { LambdaHttpEvent } from '../../functions/servers/lambda/lambda-request';
import { type DynaliteServer, type SessionTableUnderTest, startDynalite } from '../support/dynalite';
import { FakeUpstream } from '../support/fakes';
import { installLambdaRuntime, invoke } from '../support/lambda-stream-harness';
import { functionUrlEvent, restEvent } from './lambda-events';
import { jsonBody } from './lambda-grid';

let dynalite: DynaliteServer;
let table: SessionTableUnderTest;
let hub: FakeUpstream;
let handler: StreamingHandler<LambdaHttpEvent>;
let uninstall: () => void;

const ENV_NAMES = [
  'GRIDGATE_CONFIG',
  'GRIDGATE_SECRET',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_ENDPOINT_URL_DYNAMODB',
];
const savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  dynalite = await startDynalite();
  table = await dynalite.createSessionTable();
  hub = await FakeUpstream.start({ capabilities: { webSocketUrl: 'ws://10.0.0.9:4444/session/x' } });
  const dir = mkdtempSync(join(tmpdir(), 'gridgate-router-lambda-'));
  const config = join(dir, 'gridgate.json');
  writeFileSync(
    config,
    JSON.stringify({
      browsers: { chrome: { versions: { stable: { pools: ['hub'] } } } },
      pools: { hub: { kind: 'hub', url: `http://${hub.address}` } },
      store: { kind: 'dynamodb', table: table.table },
    }),
  );
  Object.assign(process.env, {
    GRIDGATE_CONFIG: config,
    GRIDGATE_SECRET: 'router-lambda-entry-secret-32-bytes!',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
  });
  uninstall = installLambdaRuntime();
  // The JSON log lines are the entry's; they are not what this test reads.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  ({ handler } = (await import('../../functions/entry/router-lambda')) as {
    handler: StreamingHandler<LambdaHttpEvent>;
  });
});

afterAll(async () => {
  vi.restoreAllMocks();
  uninstall?.();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await hub?.close();
  await table?.close();
  await dynalite?.close();
});

const NEW_CHROME = JSON.stringify({
  capabilities: { alwaysMatch: { browserName: 'chrome', webSocketUrl: true } },
});

it('creates, drives and ends a session through the deployed wiring', async () => {
  const created = await invoke(
    handler,
    functionUrlEvent({ method: 'POST', path: '/session', body: NEW_CHROME }),
  );
  expect(created.statusCode, created.body.toString()).toBe(200);
  const { sessionId, capabilities } = jsonBody<{
    value: { sessionId: string; capabilities: Record<string, unknown> };
  }>(created).value;
  expect(capabilities).not.toHaveProperty('webSocketUrl');

  const title = await invoke(handler, restEvent({ method: 'GET', path: `/session/${sessionId}/title` }));
  expect(title.statusCode).toBe(200);
  expect(hub.commands().at(-1)?.path).toMatch(/\/title$/);

  const status = await invoke(handler, restEvent({ method: 'GET', path: '/status' }));
  expect(jsonBody(status).value).toMatchObject({ ready: true });

  const deleted = await invoke(
    handler,
    functionUrlEvent({ method: 'DELETE', path: `/session/${sessionId}` }),
  );
  expect(deleted.statusCode).toBe(200);
  expect(hub.commands().at(-1)).toMatchObject({ method: 'DELETE', path: `/session/${hub.sessionIds[0]}` });
});
