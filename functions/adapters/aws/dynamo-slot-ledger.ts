/**
 * The quota slots of the DynamoDB session store: one item per slot and a counter per pool and per user,
 * changed together in transactions so that racing heads never pass a limit and a slot frees once.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CREATION_STAGES, stageRank } from '../../core/creation-stages';
import type { CreationStage, HeldSlot, SlotAnswer, SlotClaim, SlotLedger } from '../../core/ports';
import {
  COUNTERS,
  type ItemKey,
  numberAttribute,
  POOL_PREFIX,
  poolCounterKey,
  SLOTS,
  slotKey,
  USER_PREFIX,
  userCounterKey,
} from './dynamo-session-items';
import type { DynamoTable } from './dynamo-table';
import {
  backoff,
  cancellationReasons,
  conditionFailed,
  conflicted,
  MAX_ATTEMPTS,
} from './dynamo-transaction';

export class DynamoSlotLedger implements SlotLedger {
  constructor(private readonly table: DynamoTable) {}

  /**
   * One transaction takes the slot and counts it for the user and the pool, so the counters can never
   * disagree with the slots, whichever head or crash comes between. The user's counter comes before the
   * pool's so that, when both are full, the user's limit is the one named.
   */
  async acquire(key: string, { pool, poolLimit, user, userLimit }: SlotClaim): Promise<SlotAnswer> {
    return this.table.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.table.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: this.table.name,
                    Item: {
                      ...slotKey(key),
                      pool,
                      user,
                      token: randomUUID(),
                      acquiredAt: this.table.clock.now(),
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                { Update: this.countOne(userCounterKey(user), userLimit) },
                { Update: this.countOne(poolCounterKey(pool), poolLimit) },
              ],
            }),
          );
          return { ok: true };
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          const [slot, userCount, poolCount] = reasons;
          // The key holds a slot already: acquiring is idempotent per key, even when all is full now.
          if (conditionFailed(slot)) return { ok: true };
          if (conditionFailed(userCount)) return { ok: false, full: 'user', held: heldIn(userCount?.Item) };
          if (conditionFailed(poolCount)) return { ok: false, full: 'pool', held: heldIn(poolCount?.Item) };
          if (!conflicted(reasons) || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    });
  }

  /** ADD 1 to a counter, below `limit` when there is one; the refused item comes back to say how many. */
  private countOne(key: ItemKey, limit: number | undefined) {
    const below =
      limit === undefined
        ? {}
        : {
            // A counter not yet written holds 0, which is below any positive limit.
            ConditionExpression: limit > 0 ? 'attribute_not_exists(held) OR held < :limit' : 'held < :limit',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          };
    return {
      TableName: this.table.name,
      Key: key,
      UpdateExpression: 'ADD held :one',
      ExpressionAttributeValues: { ':one': 1, ...(limit === undefined ? {} : { ':limit': limit }) },
      ...below,
    };
  }

  /**
   * Deletes the slot and takes it off both counters in one transaction. The delete is conditional on
   * the very slot that was read (its token), so of concurrent releases exactly one frees it, and a
   * release that raced a re-acquire of the same key never decrements the new slot's counters.
   */
  async release(key: string): Promise<void> {
    return this.table.edge(async () => {
      for (let attempt = 1; ; attempt++) {
        const { Item: slot } = await this.table.doc.send(
          new GetCommand({ TableName: this.table.name, Key: slotKey(key), ConsistentRead: true }),
        );
        if (!slot) return;
        const decrement = (counter: ItemKey) => ({
          TableName: this.table.name,
          Key: counter,
          UpdateExpression: 'ADD held :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        });
        try {
          await this.table.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.table.name,
                    Key: slotKey(key),
                    ConditionExpression: '#token = :token',
                    ExpressionAttributeNames: { '#token': 'token' },
                    ExpressionAttributeValues: { ':token': slot.token },
                  },
                },
                { Update: decrement(userCounterKey(String(slot.user))) },
                { Update: decrement(poolCounterKey(String(slot.pool))) },
              ],
            }),
          );
          return;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          // Another release freed this slot first: ours has nothing left to do.
          if (conditionFailed(reasons[0])) return;
          if (!conflicted(reasons) || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    });
  }

  async inUse(): Promise<Record<string, number>> {
    return this.table.edge(() => this.counters(POOL_PREFIX));
  }

  async inUseByUser(): Promise<Record<string, number>> {
    return this.table.edge(() => this.counters(USER_PREFIX));
  }

  async slots(): Promise<HeldSlot[]> {
    return this.table.edge(async () => {
      const held: HeldSlot[] = [];
      for await (const { sk, pool, user, acquiredAt, stage, stageAt } of this.table.partition(SLOTS)) {
        held.push({
          key: String(sk),
          pool: String(pool),
          user: String(user),
          acquiredAt: Number(acquiredAt),
          ...(stageRank(stage) >= 0 ? { stage: stage as CreationStage, stageAt: Number(stageAt) } : {}),
        });
      }
      return held;
    });
  }

  /**
   * One conditional UpdateItem on the slot: only while the slot exists (never makes one for a key whose
   * slot is gone) and only forward (the stage stored is none or an earlier one), so marks that arrive
   * late, twice or from another head change nothing.
   */
  async markStage(key: string, stage: CreationStage, at: number): Promise<void> {
    const earlier = CREATION_STAGES.slice(0, stageRank(stage));
    const names = Object.fromEntries(earlier.map((name, i) => [`:earlier${i}`, name]));
    const forward = earlier.length
      ? `(attribute_not_exists(stage) OR stage IN (${Object.keys(names).join(', ')}))`
      : 'attribute_not_exists(stage)';
    return this.table.edge(async () => {
      try {
        await this.table.doc.send(
          new UpdateCommand({
            TableName: this.table.name,
            Key: slotKey(key),
            UpdateExpression: 'SET stage = :stage, stageAt = :at',
            ConditionExpression: `attribute_exists(pk) AND ${forward}`,
            ExpressionAttributeValues: { ':stage': stage, ':at': at, ...names },
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      }
    });
  }

  /** Counters that hold slots, by name; a counter that went back to 0 stays as an item but is left out. */
  private async counters(prefix: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for await (const item of this.table.partition(COUNTERS, prefix)) {
      const held = numberAttribute(item.held);
      if (held > 0) counts[String(item.sk).slice(prefix.length)] = held;
    }
    return counts;
  }
}

function heldIn(item: Record<string, unknown> | undefined): number {
  return numberAttribute(item?.held);
}
