/**
 * Request bodies behind Lambda stop at what one invocation can carry (lambda-body-limit.ts): a body
 * whose base64 form fits beside the event reaches the browser byte for byte; one past it is answered
 * 413 `invalid argument` naming the limit and the Node server way around it, even though the config's
 * limits.maxBodySize (64 MB by default) would take it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LAMBDA_INVOKE_PAYLOAD_BYTES,
  LAMBDA_MAX_BODY_BYTES,
} from '../../functions/servers/lambda/lambda-body-limit';
import type { LambdaHttpEvent } from '../../functions/servers/lambda/lambda-request';
import { functionUrlEvent, type HttpCall, restEvent } from './lambda-events';
import { jsonBody, NEW_CHROME, useLambdaGrids, w3cError } from './lambda-grid';

const lambdas = useLambdaGrids();

/** A JSON command body (an upload's base64 text) of exactly `size` bytes. */
function bodyOf(size: number): Buffer {
  const frame = Buffer.from('{"file":""}');
  const text = randomBytes(size)
    .toString('base64')
    .slice(0, size - frame.length);
  return Buffer.from(`{"file":"${text}"}`);
}

describe.each([
  ['API Gateway REST (payload 1.0)', (call: HttpCall) => restEvent(call)],
  ['a function URL (payload 2.0)', (call: HttpCall) => functionUrlEvent(call)],
])('behind %s', (_, eventFor) => {
  async function sessionOf(eventOf: (call: HttpCall) => LambdaHttpEvent) {
    const lambda = lambdas.start();
    const created = await lambda.invoke(eventOf({ method: 'POST', path: '/session', body: NEW_CHROME }));
    return { lambda, id: jsonBody<{ value: { sessionId: string } }>(created).value.sessionId };
  }

  it('passes the largest body that fits, base64-encoded, to the browser unchanged', async () => {
    const { lambda, id } = await sessionOf(eventFor);
    const body = bodyOf(LAMBDA_MAX_BODY_BYTES);
    const event = eventFor({ method: 'POST', path: `/session/${id}/se/file`, body, base64: true });
    expect(JSON.stringify(event).length).toBeLessThanOrEqual(LAMBDA_INVOKE_PAYLOAD_BYTES);
    const invocation = await lambda.invoke(event);
    expect(invocation.statusCode).toBe(200);
    const [received] = lambda.grid.launcher.upstream().commands();
    expect(received?.body.length).toBe(body.length);
    expect(received?.body === body.toString()).toBe(true);
  });

  it('answers 413 invalid argument, naming the limit and the Node server, one byte past it', async () => {
    const { lambda, id } = await sessionOf(eventFor);
    const body = bodyOf(LAMBDA_MAX_BODY_BYTES + 1);
    const invocation = await lambda.invoke(
      eventFor({ method: 'POST', path: `/session/${id}/se/file`, body, base64: true }),
    );
    const error = w3cError(invocation);
    expect(error).toMatchObject({ status: 413, error: 'invalid argument' });
    expect(error.message).toContain(`${LAMBDA_MAX_BODY_BYTES} bytes`);
    expect(error.message).toMatch(/Lambda's 6 MB invocation payload.*Node server/);
    expect(lambda.grid.launcher.upstream().commands()).toEqual([]);
  });
});

it('refuses an oversized new-session body the same way, before anything starts', async () => {
  const lambda = lambdas.start();
  const invocation = await lambda.invoke(
    restEvent({ method: 'POST', path: '/session', body: bodyOf(LAMBDA_MAX_BODY_BYTES + 10) }),
  );
  expect(w3cError(invocation)).toMatchObject({ status: 413, error: 'invalid argument' });
  expect(lambda.grid.launcher.started).toEqual([]);
});

it('is the limit the docs state', () => {
  const doc = (page: string) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
  const stated = LAMBDA_MAX_BODY_BYTES.toLocaleString('en-US');
  expect(doc('aws.md')).toContain(`Request bodies up to ${stated} bytes`);
  expect(doc('configuration.md')).toContain(`behind Lambda never more than ${stated} bytes`);
});
