/**
 * ecs sessions' logs (`GET /logs/{id}.log`), where the task definition's awslogs driver put the browser
 * container's output: its log stream in the browsers' log group (browser-log-stream.ts), read with
 * GetLogEvents from the head, page after page (each at most 1 MB or 10,000 events; a page may be partly
 * full or empty, and the stream ends where the token given back is the one passed), one line per event.
 * A running session's log is read as far as it was written when asked (endTime: now), so the paging ends
 * even while the browser keeps logging. Throttling and an unavailable service are waited out with backoff;
 * the SDK errors are translated here: a missing group or stream is "no log", anything else a W3C error.
 */
import { Readable } from 'node:stream';
import {
  type CloudWatchLogsClient,
  GetLogEventsCommand,
  type GetLogEventsCommandOutput,
} from '@aws-sdk/client-cloudwatch-logs';
import type {
  Artifact,
  ArtifactAsk,
  ArtifactKind,
  ArtifactSession,
  ArtifactSource,
} from '../../core/artifact-ports';
import type { Backoff } from '../../core/backoff';
import type { PoolConfig } from '../../core/config';
import { WebDriverError } from '../../core/errors';
import { browserLogStream } from './browser-log-stream';
import { isThrottling } from './ecs-retry';
import { backoffMs, NEVER_ABORTED, realSleep, type Sleep } from './retry-pacing';

/**
 * Waits between tries of one page: GetLogEvents has a per-account, per-Region rate quota that routers,
 * the console and other readers share, so a throttled read backs off (about 9 s in all before giving up).
 */
export const LOG_READ_BACKOFF: Backoff = { firstMs: 250, maxMs: 4000, factor: 2 };
export const LOG_READ_TRIES = 6;

export interface CloudWatchBrowserLogsOptions {
  /** Best made with maxAttempts 1: these reads pace their own retries (LOG_READ_BACKOFF). */
  logs: CloudWatchLogsClient;
  /** The browsers' log group (GRIDGATE_DEPLOYMENT's browserLogGroup). */
  group: string;
  /** The pool a session ran in, by its ID's claims: its name and container name make the stream's. */
  poolOf: (session: ArtifactSession) => PoolConfig | undefined;
  clock?: { now(): number };
  sleep?: Sleep;
  backoff?: Backoff;
  tries?: number;
}

type Page = Pick<GetLogEventsCommandOutput, 'events' | 'nextForwardToken'>;

export class CloudWatchBrowserLogs implements ArtifactSource {
  constructor(private readonly options: CloudWatchBrowserLogsOptions) {}

  async find(
    session: ArtifactSession,
    kind: ArtifactKind | 'screenshot',
    ask: ArtifactAsk = { method: 'GET' },
  ): Promise<Artifact | undefined> {
    if (kind !== 'log') return undefined;
    const pool = this.options.poolOf(session);
    if (pool?.kind !== 'ecs' || session.handle === '') return undefined;
    const read = {
      logGroupName: this.options.group,
      logStreamName: browserLogStream(pool, session.handle),
      endTime: (this.options.clock ?? Date).now(),
    };
    // The first page is read before answering: a session whose stream is not there has no log (a 404),
    // and a service that cannot be read is an error with a status, not a body cut short.
    const first = await this.page(read, undefined);
    if (!first) return undefined;
    return {
      kind: 'stream',
      status: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `inline; filename="${session.key}.log"`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-cache',
      },
      body: ask.method === 'HEAD' ? Readable.from([]) : Readable.from(this.lines(read, first)),
    };
  }

  /**
   * Each page's events as lines (bytes, as a response body takes them), until the token given back is the
   * one passed (the stream's end). A stream gone between pages (its retention ended) ends the log there.
   */
  private async *lines(read: StreamRead, first: Page): AsyncGenerator<Buffer> {
    let page: Page | undefined = first;
    let passed: string | undefined;
    while (page) {
      const text = (page.events ?? []).map((event) => `${event.message ?? ''}\n`).join('');
      if (text !== '') yield Buffer.from(text, 'utf8');
      const next = page.nextForwardToken;
      if (next === undefined || next === passed) return;
      passed = next;
      page = await this.page(read, next);
    }
  }

  /** One GetLogEvents, tried again after throttling or an unavailable service; undefined: no such stream. */
  private async page(read: StreamRead, nextToken: string | undefined): Promise<Page | undefined> {
    const { logs, sleep = realSleep, backoff = LOG_READ_BACKOFF, tries = LOG_READ_TRIES } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        return await logs.send(
          new GetLogEventsCommand({ ...read, startFromHead: true, ...(nextToken ? { nextToken } : {}) }),
        );
      } catch (error) {
        // ResourceNotFoundException: no such log group, or no stream (the task never logged, or its
        // events are past the group's retention).
        if ((error as Error).name === 'ResourceNotFoundException') return undefined;
        const again = isThrottling(error) || isUnavailable(error);
        if (!again || attempt + 1 >= tries) throw unreadable(error, again);
        await sleep(backoffMs(backoff, attempt), NEVER_ABORTED);
      }
    }
  }
}

interface StreamRead {
  logGroupName: string;
  logStreamName: string;
  endTime: number;
}

/** ServiceUnavailableException (HTTP 500, API_GetLogEvents) or any 5xx: the service may answer a moment later. */
function isUnavailable(error: unknown): boolean {
  const sdk = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return sdk.name === 'ServiceUnavailableException' || (sdk.$metadata?.httpStatusCode ?? 0) >= 500;
}

function unreadable(error: unknown, busy: boolean): WebDriverError {
  const why = busy ? 'is throttling reads or unavailable; try again shortly' : 'did not answer';
  return new WebDriverError('unknown error', `CloudWatch Logs ${why}: ${String(error)}`, {
    status: busy ? 503 : 502,
    cause: error,
    ...(busy ? { headers: { 'retry-after': '5' } } : {}),
  });
}
