/**
 * The custom resource behind infra/api-gateway-account-role.ts: makes sure this account and Region have an
 * API Gateway CloudWatch role, which a stage with access logs needs ("CloudWatch Logs role ARN must be set
 * in account settings to enable logging"). It sets the stack's role only when none is set, so a role
 * another stack or a person set is never replaced, and it changes nothing on delete: other APIs in the
 * account may log through the role by then.
 *
 * Bundled on its own (not under functions/: no gridgate config, no router code); the Lambda runtime
 * provides the AWS SDK. It answers CloudFormation itself, at the request's pre-signed ResponseURL.
 */
import { APIGatewayClient, GetAccountCommand, UpdateAccountCommand } from '@aws-sdk/client-api-gateway';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** One resource per account and Region: what it stands for, not which role it holds. */
export const PHYSICAL_ID = 'apigateway-account-cloudwatch-role';

export interface AccountRoleOutcome {
  /** The role the account logs through after this, ours or the one already set. */
  roleArn?: string;
  /** Whether this request set it. */
  set: boolean;
}

export interface AccountRoleDeps {
  client: Pick<APIGatewayClient, 'send'>;
  sleep?: (ms: number) => Promise<void>;
  /** How long UpdateAccount is retried while IAM has not yet made the new role assumable. @default 120 s */
  retryForMs?: number;
}

/**
 * Create and Update: GetAccount, then UpdateAccount only when `cloudwatchRoleArn` is empty. Delete: nothing.
 * A role created moments ago is refused until IAM has propagated it (BadRequestException: "The role ARN
 * does not have required permissions set to API Gateway"), and UpdateAccount is rate-limited; both are retried.
 */
export async function ensureAccountRole(
  event: CloudFormationCustomResourceEvent,
  deps: AccountRoleDeps,
): Promise<AccountRoleOutcome> {
  if (event.RequestType === 'Delete') return { set: false };
  const roleArn = String(event.ResourceProperties.RoleArn ?? '');
  if (!roleArn.startsWith('arn:')) throw new Error(`RoleArn must be an IAM role ARN, got "${roleArn}"`);
  const account = await deps.client.send(new GetAccountCommand({}));
  if (account.cloudwatchRoleArn) return { roleArn: account.cloudwatchRoleArn, set: false };
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const retryForMs = deps.retryForMs ?? 120_000;
  let waited = 0;
  for (let delay = 2_000; ; delay = Math.min(delay * 2, 15_000)) {
    try {
      await deps.client.send(
        new UpdateAccountCommand({
          patchOperations: [{ op: 'replace', path: '/cloudwatchRoleArn', value: roleArn }],
        }),
      );
      return { roleArn, set: true };
    } catch (error) {
      const name = (error as { name?: string }).name;
      const retryable = name === 'BadRequestException' || name === 'TooManyRequestsException';
      if (!retryable || waited >= retryForMs) throw error;
      await sleep(delay);
      waited += delay;
    }
  }
}

/** The answer CloudFormation waits for (custom resource response object). */
export function responseBody(
  event: CloudFormationCustomResourceEvent,
  result: { outcome: AccountRoleOutcome } | { error: unknown },
): string {
  const failed = 'error' in result;
  return JSON.stringify({
    Status: failed ? 'FAILED' : 'SUCCESS',
    Reason: failed ? message(result.error) : 'see the function log',
    PhysicalResourceId: PHYSICAL_ID,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: failed
      ? undefined
      : { RoleArn: result.outcome.roleArn ?? '', SetByThisStack: String(result.outcome.set) },
  });
}

export async function answer(
  event: CloudFormationCustomResourceEvent,
  deps: AccountRoleDeps,
  put: typeof fetch = fetch,
): Promise<void> {
  const result = await ensureAccountRole(event, deps).then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
  const logged = 'error' in result ? { error: message(result.error) } : result.outcome;
  console.log(JSON.stringify({ requestType: event.RequestType, ...logged }));
  // The pre-signed S3 URL takes the body as it is: no content type (the signature covers none).
  const response = await put(event.ResponseURL, {
    method: 'PUT',
    headers: { 'content-type': '' },
    body: responseBody(event, result),
  });
  if (!response.ok) throw new Error(`CloudFormation's response URL answered ${response.status}`);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const client = new APIGatewayClient({});

export const handler = (event: CloudFormationCustomResourceEvent): Promise<void> => answer(event, { client });
