/**
 * WarmTaskStore in the session table (infra/session-table.ts), one partition per pool:
 *
 * | item             | pk            | sk         | attributes                                               |
 * |------------------|---------------|------------|----------------------------------------------------------|
 * | a warm pool task | `warm#<pool>` | `<taskId>` | taskArn, address, startedAt, readyAt, state, session?, claimedAt?, expiresAt |
 *
 * A claim is one conditional UpdateItem (state idle → claimed), so of routers racing for one task exactly
 * one wins. A pool's partition holds at most its maxSessions items and takes a claim per new session and
 * a few cleanup writes per minute: far below a partition's 1,000 writes per second.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  paginateQuery,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../core/ports';
import type { WarmClaim, WarmTask, WarmTaskStore } from '../../core/warm-task-store';
import { expiresAt, type ItemKey, isLive } from './dynamo-session-items';
import { storeError } from './dynamo-store-error';

export interface DynamoWarmTasksOptions {
  client: DynamoDBClient;
  table: string;
  /** A backstop for entries the cleanup never removed (it removes them within a pass or two). */
  retentionMs?: number;
  /** In [0, 1): which idle task a claim tries first. */
  random?: () => number;
  clock?: Clock;
}

const DEFAULT_RETENTION_MS = 24 * 60 * 60_000;
// Racing routers spread over the idle tasks at random; after this many lost races the launch goes cold.
const CLAIM_TRIES = 3;

const warmKey = (pool: string, taskId: string): ItemKey => ({ pk: `warm#${pool}`, sk: taskId });

export class DynamoWarmTasks implements WarmTaskStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly retentionMs: number;
  private readonly random: () => number;
  private readonly clock: Clock;

  constructor(options: DynamoWarmTasksOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = options.table;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
  }

  async claim(pool: string, { key, at }: WarmClaim): Promise<WarmTask | undefined> {
    return this.edge(async () => {
      const tasks = await this.list(pool);
      // The SDK may have resent a claim whose answer was lost: the task is this session's already.
      const mine = tasks.find((task) => task.state === 'claimed' && task.session === key);
      if (mine) return mine;
      const idle = shuffled(
        tasks.filter((task) => task.state === 'idle'),
        this.random,
      );
      for (const candidate of idle.slice(0, CLAIM_TRIES)) {
        try {
          const { Attributes } = await this.doc.send(
            new UpdateCommand({
              TableName: this.table,
              Key: warmKey(pool, candidate.taskId),
              UpdateExpression: 'SET #state = :claimed, #session = :key, claimedAt = :at',
              ConditionExpression: '#state = :idle OR #session = :key',
              ExpressionAttributeNames: { '#state': 'state', '#session': 'session' },
              ExpressionAttributeValues: { ':claimed': 'claimed', ':idle': 'idle', ':key': key, ':at': at },
              ReturnValues: 'ALL_NEW',
            }),
          );
          return Attributes && toWarmTask(Attributes);
        } catch (error) {
          // Another router took this one (or the cleanup removed it) since the read: try the next.
          if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        }
      }
      return undefined;
    });
  }

  async register(task: WarmTask): Promise<boolean> {
    return this.edge(async () => {
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...warmKey(task.pool, task.taskId),
              ...task,
              expiresAt: expiresAt(task.readyAt + this.retentionMs),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    });
  }

  async list(pool: string): Promise<WarmTask[]> {
    return this.edge(async () => {
      const tasks: WarmTask[] = [];
      const pages = paginateQuery(
        { client: this.doc },
        {
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': warmKey(pool, '').pk },
          // A claim must see what the cleanup registered a moment ago, and a claimed task as claimed.
          ConsistentRead: true,
        },
      );
      const now = this.clock.now();
      for await (const page of pages) {
        for (const item of page.Items ?? []) if (isLive(item, now)) tasks.push(toWarmTask(item));
      }
      return tasks;
    });
  }

  async remove(pool: string, taskId: string): Promise<void> {
    return this.edge(async () => {
      await this.doc.send(new DeleteCommand({ TableName: this.table, Key: warmKey(pool, taskId) }));
    });
  }

  async retire(pool: string, taskId: string): Promise<boolean> {
    return this.edge(async () => {
      try {
        await this.doc.send(
          new DeleteCommand({
            TableName: this.table,
            Key: warmKey(pool, taskId),
            ConditionExpression: '#state = :idle',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':idle': 'idle' },
          }),
        );
        return true;
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    });
  }

  private async edge<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw storeError(this.table, error);
    }
  }
}

function toWarmTask(item: Record<string, unknown>): WarmTask {
  const task: WarmTask = {
    pool: String(item.pool),
    taskId: String(item.taskId),
    taskArn: String(item.taskArn),
    address: String(item.address),
    startedAt: Number(item.startedAt),
    readyAt: Number(item.readyAt),
    state: item.state === 'claimed' ? 'claimed' : 'idle',
  };
  if (typeof item.session === 'string') task.session = item.session;
  if (typeof item.claimedAt === 'number') task.claimedAt = item.claimedAt;
  return task;
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
