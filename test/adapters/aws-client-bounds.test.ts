/**
 * The AWS SDK clients on the request path, over an endpoint that accepts connections and never answers (a
 * hung connection, not a refusing one): a new session on an ecs pool fails with a clear launch error once
 * the request bound passes, instead of waiting out the SDK's 300 s socket default per attempt. The
 * endpoints come through the SDK's own AWS_ENDPOINT_URL_<SERVICE>, as a user points heads elsewhere.
 */
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/core/config';
import { awsAdapters } from '../../functions/entry/aws-adapters';
import { readSecretsManager } from '../../functions/entry/signing-secret';
import { EcsLaunchFailure } from '../../functions/pools/ecs/ecs-launch-stage';
import { ecsPoolKind } from '../../functions/pools/ecs/ecs-pool-kind';
import { CollectingLogger, RecordingMetrics } from '../support/fakes';
import { useHungAwsEndpoint } from '../support/hung-aws-endpoint';
import { ecsPool } from '../support/one-pool-config';

const sockets = useHungAwsEndpoint(['ECS', 'SECRETS_MANAGER']);
const agent = new Agent();

afterAll(async () => {
  await agent.close();
});

describe('the AWS clients on the request path', () => {
  it('end a new session whose RunTask never answers with a launch failure saying it timed out', async () => {
    // The ecs kind's own runtime, as a head loads it with its first ecs session.
    const config = parseConfig({}, { builtInBrowserVersion: '1' });
    const makeRuntime = await ecsPoolKind.load();
    const made = await makeRuntime({
      config,
      current: () => config,
      agent,
      logger: new CollectingLogger(),
      metrics: new RecordingMetrics(),
      aws: awsAdapters,
      poolOf: () => undefined,
      onUnexpectedExit: () => {},
    });
    const launcher = made.runtime.launcher;
    const pool = ecsPool({
      cluster: 'gridgate-browsers',
      taskDefinition: 'gridgate-chrome:7',
      subnets: ['subnet-a'],
      securityGroups: ['sg-browsers'],
      networks: ['127.0.0.0/8'],
    });
    const error = await launcher
      .start({
        pool,
        key: '5f0c2a9e7d3b1c48',
        user: 'alice',
        idleTimeoutMs: 300_000,
        inUseMs: 3_660_000,
        capabilities: { browserName: 'chrome' },
        browserVersion: '156',
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(sockets.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(EcsLaunchFailure);
    expect((error as Error).message).toMatch(/^launch: RunTask on FARGATE_SPOT failed: TimeoutError: /);
  });

  it('give up reading the signing secret from a Secrets Manager that never answers', async () => {
    await expect(
      readSecretsManager('arn:aws:secretsmanager:us-east-1:123456789012:secret:k'),
    ).rejects.toThrow(/requestTimeout/);
  });
});
