import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  APIGatewayClient,
  APIGatewayServiceException,
  GetAccountCommand,
  UpdateAccountCommand,
  type UpdateAccountCommandInput,
} from '@aws-sdk/client-api-gateway';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, ensureAccountRole, PHYSICAL_ID } from '../../infra/api-gateway-account-role-handler';

const OURS = 'arn:aws:iam::111122223333:role/Gridgate-FrontDoorAccountLoggingRole-ABC';
const THEIRS = 'arn:aws:iam::111122223333:role/platform-apigateway-logs';

/**
 * API Gateway's account settings as its API reference describes them: GetAccount returns
 * `cloudwatchRoleArn` only when one is set; UpdateAccount takes patch operations on `/cloudwatchRoleArn`
 * (and `/features`) only, and refuses a role API Gateway cannot assume yet (BadRequestException "The role
 * ARN does not have required permissions set to API Gateway": a new role before IAM has propagated it).
 */
function accountModel(initial: { roleArn?: string; refusalsBeforeAssumable?: number }) {
  const client = new APIGatewayClient({ region: 'us-east-1' });
  const api = mockClient(client);
  const state = { roleArn: initial.roleArn, refusals: initial.refusalsBeforeAssumable ?? 0, updates: 0 };
  api.on(GetAccountCommand).callsFake(() => (state.roleArn ? { cloudwatchRoleArn: state.roleArn } : {}));
  api.on(UpdateAccountCommand).callsFake((input: UpdateAccountCommandInput) => {
    for (const operation of input.patchOperations ?? []) {
      if (!['/cloudwatchRoleArn', '/features'].includes(operation.path ?? '')) {
        throw badRequest(`Invalid patch path ${operation.path}`);
      }
      if (operation.path === '/cloudwatchRoleArn' && operation.op !== 'replace') {
        throw badRequest(`Invalid patch operation ${operation.op}`);
      }
      if (state.refusals > 0) {
        state.refusals -= 1;
        throw badRequest('The role ARN does not have required permissions set to API Gateway');
      }
      state.roleArn = operation.value;
      state.updates += 1;
    }
    return { cloudwatchRoleArn: state.roleArn };
  });
  return { client, state, api };
}

function badRequest(message: string): APIGatewayServiceException {
  return new APIGatewayServiceException({
    name: 'BadRequestException',
    $fault: 'client',
    message,
    $metadata: {},
  });
}

function event(
  requestType: 'Create' | 'Update' | 'Delete',
  responseUrl = 'http://127.0.0.1:9/',
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:111122223333:function:setter',
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:us-east-1:111122223333:stack/Gridgate/1',
    RequestId: 'request-1',
    LogicalResourceId: 'FrontDoorAccountLoggingRoleSetting',
    ResourceType: 'Custom::ApiGatewayAccountCloudWatchRole',
    ResourceProperties: { ServiceToken: 'token', RoleArn: OURS },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  return {
    ...common,
    RequestType: requestType,
    PhysicalResourceId: PHYSICAL_ID,
    OldResourceProperties: common.ResourceProperties,
  } as CloudFormationCustomResourceEvent;
}

const noSleep = async () => {};

describe('setting the API Gateway CloudWatch role of the account', () => {
  it('sets the stack role in an account that has none', async () => {
    const { client, state } = accountModel({});
    await expect(ensureAccountRole(event('Create'), { client, sleep: noSleep })).resolves.toEqual({
      roleArn: OURS,
      set: true,
    });
    expect(state.roleArn).toBe(OURS);
  });

  it('leaves a role another stack or a person set, on create and on update', async () => {
    for (const type of ['Create', 'Update'] as const) {
      const { client, state } = accountModel({ roleArn: THEIRS });
      await expect(ensureAccountRole(event(type), { client, sleep: noSleep })).resolves.toEqual({
        roleArn: THEIRS,
        set: false,
      });
      expect(state).toMatchObject({ roleArn: THEIRS, updates: 0 });
    }
  });

  it('changes nothing on delete: other APIs may log through the role by then', async () => {
    const { client, state, api } = accountModel({ roleArn: OURS });
    await expect(ensureAccountRole(event('Delete'), { client, sleep: noSleep })).resolves.toEqual({
      set: false,
    });
    expect(api.calls()).toHaveLength(0);
    expect(state.roleArn).toBe(OURS);
  });

  it('retries while IAM has not yet made a new role assumable, then gives up with the reason', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const patient = accountModel({ refusalsBeforeAssumable: 3 });
    await expect(
      ensureAccountRole(event('Create'), { client: patient.client, sleep }),
    ).resolves.toMatchObject({
      set: true,
    });
    expect(waits).toEqual([2_000, 4_000, 8_000]);

    const never = accountModel({ refusalsBeforeAssumable: 1_000 });
    await expect(
      ensureAccountRole(event('Create'), { client: never.client, sleep: noSleep, retryForMs: 30_000 }),
    ).rejects.toThrow(/does not have required permissions/);
    expect(never.state.roleArn).toBeUndefined();
  });
});

describe('answering CloudFormation at the response URL', () => {
  const received: Array<{ method?: string; contentType?: string; body: Record<string, unknown> }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({
        method: request.method,
        contentType: request.headers['content-type'],
        body: JSON.parse(body),
      });
      response.end();
    });
  });
  let url = '';
  beforeEach(async () => {
    received.length = 0;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/presigned?X-Amz-Signature=abc`;
  });
  afterEach(() => {
    server.close();
  });

  it('reports SUCCESS with the role in use and whether this stack set it', async () => {
    const { client } = accountModel({ roleArn: THEIRS });
    await answer(event('Create', url), { client, sleep: noSleep });
    expect(received).toEqual([
      {
        method: 'PUT',
        contentType: '',
        body: {
          Status: 'SUCCESS',
          Reason: expect.any(String),
          PhysicalResourceId: PHYSICAL_ID,
          StackId: 'arn:aws:cloudformation:us-east-1:111122223333:stack/Gridgate/1',
          RequestId: 'request-1',
          LogicalResourceId: 'FrontDoorAccountLoggingRoleSetting',
          Data: { RoleArn: THEIRS, SetByThisStack: 'false' },
        },
      },
    ]);
  });

  it('reports FAILED with the reason, so the stack rolls back instead of waiting an hour', async () => {
    const { client } = accountModel({ refusalsBeforeAssumable: 1_000 });
    await answer(event('Create', url), { client, sleep: noSleep, retryForMs: 0 });
    expect(received[0]?.body).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringMatching(/does not have required permissions/),
      PhysicalResourceId: PHYSICAL_ID,
    });
  });
});
