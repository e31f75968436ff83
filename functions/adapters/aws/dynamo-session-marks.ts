/**
 * What a test says of itself (core/test-marks.ts), written into its session's items in the DynamoDB session
 * store: the running item while it runs, else the ended item and the recorded one. Each write is conditional
 * on the `marked` count read (and adds one to it), so two heads marking the same session at once both land
 * (labels merge), and a running session's end, which is conditional on the count too, carries every mark.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SessionRecord } from '../../core/ports';
import { type TestMarks, withMarks } from '../../core/test-marks';
import { endedKey, type ItemKey, recordedKey, runningKey, toRecord } from './dynamo-session-items';
import type { DynamoTable } from './dynamo-table';
import { backoff, MAX_ATTEMPTS } from './dynamo-transaction';

/** The attribute counting the marks an item took: what concurrent writers of one session compare. */
export const MARKED = 'marked';

export async function markSession(
  table: DynamoTable,
  key: string,
  marks: TestMarks,
): Promise<SessionRecord | undefined> {
  for (let attempt = 1; ; attempt++) {
    const running = await table.item(runningKey(key));
    const item = running ?? (await table.item(endedKey(key)));
    if (!item) return undefined;
    const marked = withMarks(toRecord(item), marks);
    if (await update(table, running ? runningKey(key) : endedKey(key), item, marked)) {
      // The status page lists ended sessions with recordings from their own items: they show the marks too.
      if (!running && marked.recording && marked.endedAt !== undefined) {
        await update(table, recordedKey(key, marked.endedAt), undefined, marked);
      }
      return marked;
    }
    // Marked by someone else, or ended, since the read: read again.
    if (attempt >= MAX_ATTEMPTS) throw new Error(`session ${key} kept changing while being marked`);
    await backoff(attempt);
  }
}

/**
 * Sets the marked fields on one item if it still exists and (when `read` is given) took no mark since it was
 * read; false when the condition failed. Without `read` (the recorded item, a copy) it only must exist.
 */
async function update(
  table: DynamoTable,
  key: ItemKey,
  read: Record<string, unknown> | undefined,
  marked: SessionRecord,
): Promise<boolean> {
  const fields = {
    result: marked.result,
    name: marked.name,
    build: marked.build,
    project: marked.project,
    labels: marked.labels,
  };
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  const names = Object.fromEntries(set.map(([field]) => [`#${field}`, field]));
  const values = Object.fromEntries(set.map(([field, value]) => [`:${field}`, value]));
  const count = typeof read?.[MARKED] === 'number' ? read[MARKED] : undefined;
  const unchanged =
    read === undefined
      ? ''
      : count === undefined
        ? ' AND attribute_not_exists(#marked)'
        : ' AND #marked = :seen';
  try {
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: `${set.length ? `SET ${set.map(([field]) => `#${field} = :${field}`).join(', ')} ` : ''}ADD #marked :one`,
        ConditionExpression: `attribute_exists(pk)${unchanged}`,
        ExpressionAttributeNames: { ...names, '#marked': MARKED },
        ExpressionAttributeValues: {
          ...values,
          ':one': 1,
          ...(count === undefined ? {} : { ':seen': count }),
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
