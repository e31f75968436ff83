import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { readSecretsManager, signingSecret } from '../../functions/entry/signing-secret';

const KEY = 'k'.repeat(64);
const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:gridgate-signing-key-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

afterEach(() => secrets.reset());

describe('signingSecret', () => {
  it('takes GRIDGATE_SECRET as it is', async () => {
    expect(await signingSecret({ GRIDGATE_SECRET: KEY }, { fallback: 'none' })).toEqual(Buffer.from(KEY));
  });

  it('reads the Secrets Manager secret GRIDGATE_SECRET_ARN names, by that ARN', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: KEY });
    const secret = await signingSecret(
      { GRIDGATE_SECRET_ARN: ARN },
      { fallback: 'none', read: readSecretsManager },
    );
    expect(secret).toEqual(Buffer.from(KEY));
    expect(secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input)).toEqual([
      { SecretId: ARN },
    ]);
  });

  it('names the ARN and the error when the secret cannot be read', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' }));
    await expect(signingSecret({ GRIDGATE_SECRET_ARN: ARN }, { fallback: 'none' })).rejects.toThrow(
      `GRIDGATE_SECRET_ARN is not a valid gridgate config:\n  - cannot read ${ARN}: AccessDeniedException: not allowed`,
    );
  });

  it('refuses a short key from either source', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'short' });
    await expect(signingSecret({ GRIDGATE_SECRET: 'short' }, { fallback: 'none' })).rejects.toThrow(
      /at least 32/,
    );
    await expect(signingSecret({ GRIDGATE_SECRET_ARN: ARN }, { fallback: 'none' })).rejects.toThrow(
      /at least 32/,
    );
  });

  it('makes a random per-process key only where that is allowed', async () => {
    const one = await signingSecret({}, { fallback: 'random' });
    const two = await signingSecret({}, { fallback: 'random' });
    expect(one).toHaveLength(32);
    expect(one.equals(two)).toBe(false);
    await expect(signingSecret({}, { fallback: 'none' })).rejects.toThrow(/GRIDGATE_SECRET/);
  });
});
