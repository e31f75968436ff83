/** The DynamoDB table that holds quota slots and session records, one item collection per key. */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

export interface SessionTableProps {
  /** @default RemovalPolicy.RETAIN: deleting the stack must not delete live sessions' records. */
  removalPolicy?: RemovalPolicy;
}

export class SessionTable extends Construct {
  /** Items expire at this attribute (epoch seconds). TTL deletes lag by up to two days, so reads filter on it too. */
  static readonly TTL_ATTRIBUTE = 'expiresAt';

  readonly table: Table;

  constructor(scope: Construct, id: string, props: SessionTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      // Single-table layout: `pk` names the owner (a user's quota, a session), `sk` the item within it.
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      // Traffic follows test runs (bursts, then nothing), which on-demand bills best.
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: SessionTable.TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}
