/** The interfaces the core and the HTTP app depend on; adapters implement them. */
import type { Capabilities } from './capabilities';
import type { PoolConfig } from './config';

export interface LaunchRequest {
  pool: PoolConfig;
  /** The matched capabilities, gridgate's own options removed. */
  capabilities: Capabilities;
  /** Aborted when the client goes away or the new-session deadline passes. */
  signal: AbortSignal;
}

export interface LaunchedBrowser {
  /** host:port of the browser's WebDriver endpoint. */
  address: string;
  /** What stop() needs, and what the session ID carries. */
  handle: string;
  /** The capabilities to send in the new-session request, with the pool's settings filled in. */
  capabilities: Capabilities;
}

/** Starts and stops browsers of one kind (local, hub, ecs, eks). */
export interface Launcher {
  /** Starts a browser ready for one new-session request; on abort it stops what it started and rejects. */
  start(request: LaunchRequest): Promise<LaunchedBrowser>;
  /** Stops the browser and frees what it held. Idempotent; never throws for an unknown handle. */
  stop(handle: string): Promise<void>;
}

export type SessionEndReason = 'deleted' | 'idle timeout' | 'max age' | 'browser exited' | 'server shutdown';

export interface SessionRecord {
  key: string;
  user: string;
  pool: string;
  browserName: string;
  browserVersion: string;
  address: string;
  handle: string;
  upstreamId: string;
  createdAt: number;
  lastActivityAt: number;
  idleTimeoutMs: number;
  maxAgeMs: number;
  endedAt?: number;
  endReason?: SessionEndReason;
}

/** Quota slots and session records. In memory locally; DynamoDB on AWS. */
export interface SessionStore {
  /** Atomically takes a slot in the pool if fewer than `limit` are taken; idempotent per key. */
  acquire(key: string, pool: string, limit: number): Promise<boolean>;
  /** Gives the key's slot back; idempotent. */
  release(key: string): Promise<void>;
  /** Slots taken per pool. */
  inUse(): Promise<Record<string, number>>;
  add(record: SessionRecord): Promise<void>;
  get(key: string): Promise<SessionRecord | undefined>;
  /** Running sessions (ended ones are kept for a while so later commands can say why). */
  running(): Promise<SessionRecord[]>;
  /** Notes activity; cheap and synchronous so the command path can call it. */
  touch(key: string, at: number): void;
  /** Marks the session ended; returns the record only to the first caller, so a session ends once. */
  end(key: string, reason: SessionEndReason, at: number): Promise<SessionRecord | undefined>;
}

/** A closed set of event names, documented in the README. */
export type LogEvent =
  | 'SERVER_STARTED'
  | 'SERVER_STOPPING'
  | 'SERVER_STOPPED'
  | 'BROWSER_INSTALL'
  | 'SESSION_REQUESTED'
  | 'SESSION_CREATED'
  | 'SESSION_FAILED'
  | 'SESSION_DELETED'
  | 'SESSION_TIMED_OUT'
  | 'SESSION_ENDED'
  | 'SESSION_ID_REJECTED'
  | 'BROWSER_EXITED'
  | 'BROWSER_STOP_FAILED'
  | 'UPSTREAM_ERROR'
  | 'REQUEST_FAILED';

export interface Logger {
  log(event: LogEvent, fields?: Record<string, unknown>): void;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
