/**
 * Where the DynamoDB session store keeps what, in the one table of infra/session-table.ts (pk, sk,
 * TTL attribute `expiresAt` in epoch seconds), and how a stored item turns back into a record.
 *
 * | item                      | pk               | sk             | attributes                         |
 * |---------------------------|------------------|----------------|------------------------------------|
 * | a key's quota slot        | `slots`          | `<key>`        | pool, user, token, acquiredAt, stage, stageAt |
 * | slots held in a pool      | `counters`       | `pool#<pool>`  | held                               |
 * | slots held by a user      | `counters`       | `user#<user>`  | held                               |
 * | a running session         | `running`        | `<key>`        | the record (commands, marked: ADD), expiresAt |
 * | an ended session          | `ended#<key>`    | `record`       | the record, endedAt, endReason, expiresAt |
 * | an ended session that recorded something | `recorded` | `<endedAt, 15 digits>#<key>` | the ended record, expiresAt |
 * | a reclaimed browser       | `reclaim#<handle>` | `reclaim`    | at, reason, expiresAt              |
 *
 * Slots share one partition so that the cleanup lists them with one Query (to free those whose session
 * never came). Running sessions share one partition so that listing them is one Query that reads only what runs:
 * ended records live elsewhere, under their own key, and never slow the listing down. The counters share
 * one partition too, so each listing is one Query. A partition takes about 1,000 writes per second; a
 * session costs a handful of writes plus one touch per key per touch interval, far below that.
 * Ended sessions with recordings share one partition too, sorted by when they ended (the time zero-padded,
 * so the strings sort as the numbers do), so that the status page's list is one Query, newest first; an
 * ended record of such a session is kept as long as its recordings, so it is found by key as long.
 */
import type { SessionEndReason, SessionRecord, SessionRecording, TaskBilling } from '../../core/ports';
import type { TestResult } from '../../core/test-marks';

export interface ItemKey {
  pk: string;
  sk: string;
}

export const COUNTERS = 'counters';
export const POOL_PREFIX = 'pool#';
export const USER_PREFIX = 'user#';
export const RUNNING = 'running';
export const RECORDED = 'recorded';

export const SLOTS = 'slots';
export const slotKey = (key: string): ItemKey => ({ pk: SLOTS, sk: key });
export const poolCounterKey = (pool: string): ItemKey => ({ pk: COUNTERS, sk: `${POOL_PREFIX}${pool}` });
export const userCounterKey = (user: string): ItemKey => ({ pk: COUNTERS, sk: `${USER_PREFIX}${user}` });
export const runningKey = (key: string): ItemKey => ({ pk: RUNNING, sk: key });
export const endedKey = (key: string): ItemKey => ({ pk: `ended#${key}`, sk: 'record' });
export const recordedKey = (key: string, endedAt: number): ItemKey => ({
  pk: RECORDED,
  sk: `${String(endedAt).padStart(15, '0')}#${key}`,
});
export const reclaimKey = (handle: string): ItemKey => ({ pk: `reclaim#${handle}`, sk: 'reclaim' });

/** The TTL attribute's value for an item that may go at `ms` (epoch milliseconds). */
export const expiresAt = (ms: number): number => Math.ceil(ms / 1000);

/** TTL deletes lag by up to two days, so an item past its expiresAt is treated as gone. */
export function isLive(item: Record<string, unknown>, nowMs: number): boolean {
  return typeof item.expiresAt !== 'number' || item.expiresAt * 1000 > nowMs;
}

/** The record an item stores, with only the record's own fields (no keys, no TTL). */
export function toRecord(item: Record<string, unknown>): SessionRecord {
  const record: SessionRecord = {
    key: String(item.key),
    user: String(item.user),
    pool: String(item.pool),
    browserName: String(item.browserName),
    browserVersion: String(item.browserVersion),
    address: String(item.address),
    handle: String(item.handle),
    upstreamId: String(item.upstreamId),
    createdAt: Number(item.createdAt),
    lastActivityAt: Number(item.lastActivityAt),
    idleTimeoutMs: Number(item.idleTimeoutMs),
    maxAgeMs: Number(item.maxAgeMs),
  };
  if (typeof item.endedAt === 'number') record.endedAt = item.endedAt;
  if (typeof item.endReason === 'string') record.endReason = item.endReason as SessionEndReason;
  if (typeof item.color === 'string') record.color = item.color;
  if (typeof item.commands === 'number') record.commands = item.commands;
  if (typeof item.lastCommand === 'string') record.lastCommand = item.lastCommand;
  if (item.billing && typeof item.billing === 'object') record.billing = item.billing as TaskBilling;
  if (typeof item.name === 'string') record.name = item.name;
  if (item.protocol === 'cdp' || item.protocol === 'playwright') record.protocol = item.protocol;
  if (typeof item.head === 'string') record.head = item.head;
  if (isTestResult(item.result)) record.result = item.result;
  if (typeof item.build === 'string') record.build = item.build;
  if (typeof item.project === 'string') record.project = item.project;
  if (item.labels && typeof item.labels === 'object') record.labels = item.labels as Record<string, string>;
  if (item.recording && typeof item.recording === 'object') record.recording = toRecording(item.recording);
  return record;
}

function isTestResult(value: unknown): value is TestResult {
  const status = (value as { status?: unknown } | undefined)?.status;
  return status === 'passed' || status === 'failed';
}

function toRecording(value: object): SessionRecording {
  const { video, log, retentionMs, keep } = value as Record<string, unknown>;
  return {
    video: video === true,
    log: log === true,
    retentionMs: Number(retentionMs),
    ...(keep === 'failed' ? { keep } : {}),
  };
}

/** A number attribute as the SDK may hand it back: plain (document client) or raw (`{ N: "2" }`). */
export function numberAttribute(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'N' in value) return Number((value as { N: string }).N);
  return 0;
}
