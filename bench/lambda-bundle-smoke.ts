/**
 * A built router bundle answering real requests, so a broken bundle is noticed (a name the lean
 * undici lacks, a chunk that does not load, a CommonJS require that fails): the bundle's handler,
 * imported with a Lambda environment, creates a session on a fake hub on 127.0.0.1, answers
 * GET /status from the DynamoDB store (dynalite on 127.0.0.1), and ends the session. Run in a process
 * of its own: it sets the environment and the runtime's global that the entry reads at import.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StreamingHandler } from '../functions/servers/lambda/lambda-globals';
import type { LambdaHttpEvent } from '../functions/servers/lambda/lambda-request';
import { functionUrlEvent, restEvent } from '../test/lambda/lambda-events';
import { startDynalite } from '../test/support/dynalite';
import { FakeUpstream } from '../test/support/fakes';
import { type Invocation, installLambdaRuntime, invoke } from '../test/support/lambda-stream-harness';

export interface SmokeResult {
  newSession: number | undefined;
  status: number | undefined;
  ready: unknown;
  deleted: number | undefined;
  /** What the hub received, in order: the bundle's HTTP client reached it. */
  hubSaw: string[];
}

export async function smokeRouterBundle(bundle: string): Promise<SmokeResult> {
  const dynalite = await startDynalite();
  const table = await dynalite.createSessionTable();
  const hub = await FakeUpstream.start();
  const uninstall = installLambdaRuntime();
  try {
    const config = join(mkdtempSync(join(tmpdir(), 'gridgate-bundle-smoke-')), 'gridgate.json');
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
      GRIDGATE_SECRET: 'bundle-smoke-secret-bundle-smoke-secret!',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'smoke',
      AWS_SECRET_ACCESS_KEY: 'smoke',
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    const { handler } = (await import(pathToFileURL(bundle).href)) as {
      handler: StreamingHandler<LambdaHttpEvent>;
    };
    const body = (invocation: Invocation) => JSON.parse(invocation.body.toString('utf8') || 'null');
    const created = await invoke(
      handler,
      functionUrlEvent({
        method: 'POST',
        path: '/session',
        body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
      }),
    );
    const sessionId = body(created)?.value?.sessionId as string | undefined;
    const status = await invoke(handler, restEvent({ method: 'GET', path: '/status' }));
    const deleted = sessionId
      ? await invoke(handler, functionUrlEvent({ method: 'DELETE', path: `/session/${sessionId}` }))
      : undefined;
    return {
      newSession: created.statusCode,
      status: status.statusCode,
      ready: body(status)?.value?.ready,
      deleted: deleted?.statusCode,
      hubSaw: hub.requests.map(({ method, path }) => `${method} ${path}`),
    };
  } finally {
    uninstall();
    await hub.close();
    await table.close();
    await dynalite.close();
  }
}

/** Whether the smoke run shows a working bundle; the reason when it does not. */
export function smokeProblem(result: SmokeResult): string | undefined {
  if (result.newSession !== 200) return `new session answered ${result.newSession}`;
  if (result.status !== 200 || result.ready !== true) return `GET /status answered ${result.status}`;
  if (result.deleted !== 200) return `DELETE answered ${result.deleted}`;
  if (result.hubSaw.length !== 2) return `the hub saw ${result.hubSaw.join(', ')}`;
  return undefined;
}
