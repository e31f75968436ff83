/**
 * Recent session starts for sizing warm pools, read from what the session store already keeps: running
 * records and ended ones (retained an hour by default), each with its pool and createdAt
 * (dynamo-session-items.ts). Ended records live under one partition each, so this is a Scan: it reads the
 * whole table once per cleanup pass, about (sessions of the last hour) × ~0.5 KB; a thousand sessions an
 * hour is ~0.5 MB, ~60 read units a pass, a few cents a month on demand. Sessions that recorded something are
 * kept for the recording retention instead, in two items (their ended record and one in the recorded
 * partition, which the filter leaves out so that no start is counted twice).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { SessionStart, SessionStarts } from '../../core/warm-demand';
import { endedKey, RUNNING } from './dynamo-session-items';
import { storeError } from './dynamo-store-error';

const ENDED_PREFIX = endedKey('').pk;

export class DynamoSessionStarts implements SessionStarts {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  async startedSince(since: number): Promise<SessionStart[]> {
    try {
      const starts: SessionStart[] = [];
      const pages = paginateScan(
        { client: this.doc },
        {
          TableName: this.table,
          FilterExpression: '(pk = :running OR begins_with(pk, :ended)) AND createdAt >= :since',
          ProjectionExpression: '#pool, createdAt',
          ExpressionAttributeNames: { '#pool': 'pool' },
          ExpressionAttributeValues: { ':running': RUNNING, ':ended': ENDED_PREFIX, ':since': since },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          if (typeof item.pool === 'string' && typeof item.createdAt === 'number') {
            starts.push({ pool: item.pool, createdAt: item.createdAt });
          }
        }
      }
      return starts;
    } catch (error) {
      throw storeError(this.table, error);
    }
  }
}
