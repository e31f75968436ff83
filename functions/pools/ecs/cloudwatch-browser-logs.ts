/**
 * ecs sessions' logs (`GET /logs/{id}.log`), where the task definition's awslogs driver put the browser
 * container's output: its log stream in the browsers' log group (browser-log-stream.ts), read with
 * GetLogEvents from the head, page after page (each at most 1 MB or 10,000 events; a page may be partly
 * full or empty, and the stream ends where the token given back is the one passed), one line per event.
 * A running session's log is read as far as it was written when asked (endTime: now), so the paging ends
 * even while the browser keeps logging. Throttling and an unavailable service are waited out with backoff;
 * the SDK errors are translated here: a missing group or stream is "no log", anything else a W3C error.
 *
 * GetLogEvents has a per-account, per-Region rate quota (CloudWatch Logs quotas: 10 calls a second, not
 * adjustable) that every router, the console and other readers share, and people and log followers ask for
 * the same running session's log again and again. So this process's calls are paced (LOG_READ_PACING: a turn
 * each, a bounded wait for it, else a 503 at once), and a log of up to LOG_BUFFER_BYTES is read whole before
 * it is answered and kept LOG_KEEP_MS for everyone who asks meanwhile (one read for many followers; a
 * throttled read is a W3C 503, never a body cut short). A longer log streams past that, page after page.
 */
import { Readable } from 'node:stream';
import {
  type CloudWatchLogsClient,
  GetLogEventsCommand,
  type GetLogEventsCommandOutput,
} from '@aws-sdk/client-cloudwatch-logs';
import { backoffMs, NEVER_ABORTED, realSleep, type Sleep } from '../../adapters/aws/retry-pacing';
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
import { RecentResults } from '../selenium-node/recent-results';
import { browserLogStream } from './browser-log-stream';
import { CallPacer, type CallPacing } from './call-pacer';
import { isThrottling } from './ecs-retry';

/**
 * Waits between tries of one page: GetLogEvents has a per-account, per-Region rate quota that routers,
 * the console and other readers share, so a throttled read backs off (about 9 s in all before giving up).
 */
export const LOG_READ_BACKOFF: Backoff = { firstMs: 250, maxMs: 4000, factor: 2 };
export const LOG_READ_TRIES = 6;
/**
 * This process's GetLogEvents calls: a fifth of the account's 10 a second, so five heads (or Lambda
 * environments) reading flat out stay within it beside the console; a read that would wait past 10 s for its
 * turn (20 calls ahead of it) is refused with a 503 at once rather than queue without bound. The quota: "10
 * requests per second per account per Region. This quota can't be changed." (CloudWatch Logs quotas,
 * docs.aws.amazon.com/AmazonCloudWatch/latest/logs/cloudwatch_limits_cwl.html, GetLogEvents, as its archived
 * copy in awsdocs/amazon-cloudwatch-logs-user-guide reads; the live page may give more, e.g. 25, as it does
 * for DescribeLogStreams since: 2 a second stays within either).
 */
export const LOG_READ_PACING: CallPacing = { perSecond: 2, maxWaitMs: 10_000 };
/** A log read whole is kept this long for whoever asks meanwhile (a follower polling each second). */
export const LOG_KEEP_MS = 2000;
/** Logs up to this size are read whole before answering (one session's is about 5 KB); longer ones stream. */
export const LOG_BUFFER_BYTES = 1_048_576;

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
  /** @default LOG_READ_PACING */
  pacing?: CallPacing;
  /** @default LOG_BUFFER_BYTES */
  bufferBytes?: number;
}

type Page = Pick<GetLogEventsCommandOutput, 'events' | 'nextForwardToken'>;

/** A log as far as it was read before answering: all of it, or its first part and where the rest goes on. */
type LogRead = { kind: 'whole'; text: Buffer } | { kind: 'longer'; text: Buffer[]; token: string };

export class CloudWatchBrowserLogs implements ArtifactSource {
  private readonly pacer: CallPacer;
  private readonly recent: RecentResults<LogRead | undefined>;

  constructor(private readonly options: CloudWatchBrowserLogsOptions) {
    const clock = options.clock ?? Date;
    this.pacer = new CallPacer(options.pacing ?? LOG_READ_PACING, clock);
    this.recent = new RecentResults(LOG_KEEP_MS, clock);
  }

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
    const headers = {
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': `inline; filename="${session.key}.log"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-cache',
    };
    // A HEAD reads one page: a session whose stream is not there has no log (a 404).
    if (ask.method === 'HEAD') {
      return (await this.page(read, undefined))
        ? { kind: 'stream', status: 200, headers, body: Readable.from([]) }
        : undefined;
    }
    // Read before answering, so a service that cannot be read is an error with a status, not a body cut
    // short; shared with everyone asking for this stream meanwhile when it is read whole.
    const log = await this.recent.get(
      `${read.logGroupName}\0${read.logStreamName}`,
      () => this.readUpTo(read),
      (result) => result?.kind !== 'longer',
    );
    if (!log) return undefined;
    if (log.kind === 'whole') {
      return {
        kind: 'stream',
        status: 200,
        headers: { ...headers, 'content-length': String(log.text.length) },
        body: Readable.from([log.text]),
      };
    }
    return { kind: 'stream', status: 200, headers, body: Readable.from(this.rest(read, log)) };
  }

  /** The log from its head up to bufferBytes, or all of it; undefined: no such stream. */
  private async readUpTo(read: StreamRead): Promise<LogRead | undefined> {
    const most = this.options.bufferBytes ?? LOG_BUFFER_BYTES;
    const text: Buffer[] = [];
    let bytes = 0;
    let page = await this.page(read, undefined);
    if (!page) return undefined;
    let passed: string | undefined;
    while (page) {
      const lines = linesOf(page);
      if (lines) text.push(lines);
      bytes += lines?.length ?? 0;
      const next = page.nextForwardToken;
      if (next === undefined || next === passed) break;
      if (bytes >= most) return { kind: 'longer', text, token: next };
      passed = next;
      page = await this.page(read, next);
    }
    return { kind: 'whole', text: Buffer.concat(text) };
  }

  /**
   * A longer log: what was read, then each further page's lines, until the token given back is the one
   * passed (the stream's end). A stream gone between pages (its retention ended) ends the log there.
   */
  private async *rest(read: StreamRead, log: Extract<LogRead, { kind: 'longer' }>): AsyncGenerator<Buffer> {
    yield* log.text;
    let passed = log.token;
    let page = await this.page(read, passed);
    while (page) {
      const lines = linesOf(page);
      if (lines) yield lines;
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
      // Every try waits for its turn, retries too: a throttled service is not asked faster.
      const wait = this.pacer.turn();
      if (wait === undefined) throw paced(this.options.pacing ?? LOG_READ_PACING);
      if (wait > 0) await sleep(wait, NEVER_ABORTED);
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

/** A page's events as lines, as bytes (what a response body takes); undefined when it has none. */
function linesOf(page: Page): Buffer | undefined {
  const text = (page.events ?? []).map((event) => `${event.message ?? ''}\n`).join('');
  return text === '' ? undefined : Buffer.from(text, 'utf8');
}

/** Refused before asking: this process's reads have all the turns it may give for the next while. */
function paced(pacing: CallPacing): WebDriverError {
  return new WebDriverError(
    'unknown error',
    `too many browser logs are being read: this router reads CloudWatch Logs at most ${pacing.perSecond} times a second; try again shortly`,
    { status: 503, headers: { 'retry-after': String(Math.max(1, Math.ceil(pacing.maxWaitMs / 1000))) } },
  );
}

function unreadable(error: unknown, busy: boolean): WebDriverError {
  const why = busy ? 'is throttling reads or unavailable; try again shortly' : 'did not answer';
  return new WebDriverError('unknown error', `CloudWatch Logs ${why}: ${String(error)}`, {
    status: busy ? 503 : 502,
    cause: error,
    ...(busy ? { headers: { 'retry-after': '5' } } : {}),
  });
}
