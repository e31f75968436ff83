/**
 * The key that signs session IDs: GRIDGATE_SECRET, or the Secrets Manager secret GRIDGATE_SECRET_ARN
 * names (what the CDK app sets), read once when the process or Lambda environment starts.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../core/config';

const MIN_LENGTH = 32;

/** The text of the secret an ARN names. */
export type SecretReader = (arn: string) => Promise<string>;

export const readSecretsManager: SecretReader = async (arn) => {
  // Loaded only when an ARN is given: the Node server on a laptop never needs the SDK.
  const [{ GetSecretValueCommand, SecretsManagerClient }, { boundedRequests }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('../adapters/aws/request-bounds'),
  ]);
  const client = new SecretsManagerClient({ requestHandler: boundedRequests() });
  const answer = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  if (answer.SecretString === undefined) throw new Error('it holds binary data, not text');
  return answer.SecretString;
};

export interface SecretOptions {
  /**
   * What serves when neither variable is set: a random per-process key (one Node server; IDs die with
   * it), or nothing, for routers that must all verify each other's IDs.
   */
  fallback: 'random' | 'none';
  read?: SecretReader;
}

export async function signingSecret(env: NodeJS.ProcessEnv, options: SecretOptions): Promise<Buffer> {
  const { GRIDGATE_SECRET: secret, GRIDGATE_SECRET_ARN: arn } = env;
  if (secret) return checked('GRIDGATE_SECRET', secret);
  if (arn) {
    let text: string;
    try {
      text = await (options.read ?? readSecretsManager)(arn);
    } catch (error) {
      const { name, message } = error as Error;
      throw new ConfigError('GRIDGATE_SECRET_ARN', [`cannot read ${arn}: ${name}: ${message}`]);
    }
    return checked(`GRIDGATE_SECRET_ARN (${arn})`, text);
  }
  if (options.fallback === 'random') return randomBytes(MIN_LENGTH);
  throw new ConfigError('GRIDGATE_SECRET', [
    'must be set, or GRIDGATE_SECRET_ARN: every router must sign and verify session IDs with the same key',
  ]);
}

function checked(source: string, secret: string): Buffer {
  if (Buffer.byteLength(secret) < MIN_LENGTH) {
    throw new ConfigError(source, [`must be at least ${MIN_LENGTH} characters long`]);
  }
  return Buffer.from(secret, 'utf8');
}
