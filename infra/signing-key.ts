/** The Secrets Manager secret holding the key that signs session IDs (HMAC-SHA256, functions/core/session-token.ts). */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface SigningKeyProps {
  /** @default RemovalPolicy.RETAIN: a new key would invalidate every live session ID. */
  removalPolicy?: RemovalPolicy;
}

export class SigningKey extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: SigningKeyProps = {}) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'gridgate: the key that signs session IDs',
      // 64 letters and digits: well over the router's 32-character minimum, and safe in any env var or shell.
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Session IDs are verified statelessly with this one key, so a new key ends every live session; no ' +
        'rotation Lambda can do that safely. Rotate it by hand at a quiet time: put a new 64-character value ' +
        '(aws secretsmanager put-secret-value) and redeploy the router so it loads it. Sessions live at most ' +
        'timeouts.maxAge (1 h by default), which bounds how long a leaked session ID is useful.',
    });
  }
}
