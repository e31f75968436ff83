/** The gridgate stack: today its data layer (session table, signing key); later issues add the compute. */
import { CfnOutput, type RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Config } from '../functions/core/config';
import { SessionTable } from './session-table';
import { SigningKey } from './signing-key';

export interface GridgateStackProps extends StackProps {
  /** The validated gridgate config; the pools and limits the compute will be built from. */
  config: Config;
  /** For the stateful resources. @default RemovalPolicy.RETAIN */
  removalPolicy?: RemovalPolicy;
}

export class GridgateStack extends Stack {
  readonly config: Config;
  readonly sessions: SessionTable;
  readonly signingKey: SigningKey;

  constructor(scope: Construct, id: string, props: GridgateStackProps) {
    super(scope, id, props);
    this.config = props.config;
    const { removalPolicy } = props;
    this.sessions = new SessionTable(this, 'Sessions', { removalPolicy });
    this.signingKey = new SigningKey(this, 'SigningKey', { removalPolicy });

    new CfnOutput(this, 'SessionTableName', { value: this.sessions.table.tableName });
    new CfnOutput(this, 'SessionTableArn', { value: this.sessions.table.tableArn });
    new CfnOutput(this, 'SigningKeySecretName', { value: this.signingKey.secret.secretName });
    new CfnOutput(this, 'SigningKeySecretArn', { value: this.signingKey.secret.secretArn });
  }
}
