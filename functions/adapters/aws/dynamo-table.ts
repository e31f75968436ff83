/**
 * One DynamoDB table as gridgate's stores read it: consistent reads of live items and of whole
 * partitions, and every SDK error turned into a WebDriverError at the edge.
 */
import { type DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../core/ports';
import { type ItemKey, isLive } from './dynamo-session-items';
import { storeError } from './dynamo-store-error';

export class DynamoTable {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly name: string,
    readonly clock: Clock,
  ) {}

  /** Every item of one partition (whose sort key starts with `prefix`), read consistently, page by page. */
  async *partition(pk: string, prefix?: string): AsyncGenerator<Record<string, unknown>> {
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.name,
        KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: prefix === undefined ? { ':pk': pk } : { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  /**
   * The first `max` items of one partition, greatest sort key first (ScanIndexForward false), page by page:
   * each page at most `pageSize` items (and DynamoDB's 1 MB), none past `max`. Eventually consistent, at half
   * the read units of a consistent read: what it lists is for people, for whom a second's lag is nothing.
   */
  async *greatestFirst(pk: string, max: number, pageSize = max): AsyncGenerator<Record<string, unknown>> {
    let left = max;
    const pages = paginateQuery(
      { client: this.doc, pageSize: Math.min(pageSize, max) },
      {
        TableName: this.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        yield item;
        if (--left <= 0) return;
      }
    }
  }

  /** A live item (strongly consistent: a head must see what another head just wrote). */
  async item(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.name, Key: key, ConsistentRead: true }),
    );
    return Item && isLive(Item, this.clock.now()) ? Item : undefined;
  }

  /** Every SDK error leaves the adapter as a WebDriverError the HTTP layer can send. */
  async edge<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw storeError(this.name, error);
    }
  }
}
