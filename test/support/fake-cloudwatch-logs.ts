/**
 * An in-process stand-in for CloudWatch Logs' GetLogEvents: a node:http server on 127.0.0.1 speaking the
 * real wire protocol (awsJson1_1: POST / with X-Amz-Target Logs_20140328.GetLogEvents, JSON both ways), so
 * a real CloudWatchLogsClient talks to it. Log groups and streams are filled by the test (as an awslogs
 * driver would); each call is first checked against what the service refuses (cloudwatch-logs-api-rules.ts),
 * then answered with a page from the head: at most 10,000 events and 1 MB (fewer with `pageSize`, and an
 * empty page now and then with `emptyPages`: the reference says a page may be partly full or empty), and
 * the token passed given back once the stream's end is reached. Calls past the service's rate quota in any
 * one second are throttled as the service throttles them (GET_LOG_EVENTS_PER_SECOND, or `callsPerSecond`);
 * more throttling can be scripted per call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { awsJsonAnswer, awsJsonError, closeServer, requestBody } from './aws-json-fake';
import {
  eventBytes,
  GET_LOG_EVENTS_PER_SECOND,
  LogsRefusal,
  MAX_EVENTS_PER_PAGE,
  MAX_PAGE_BYTES,
  notFound,
  refuseGetLogEvents,
  refuseToken,
  throttled,
} from './cloudwatch-logs-api-rules';

const TARGET_PREFIX = 'Logs_20140328.';

// biome-ignore lint/suspicious/noExplicitAny: request and answer bodies are free-form JSON, checked field by field.
type Json = any;

export interface LogEvent {
  timestamp: number;
  message: string;
  ingestionTime: number;
}

export interface FakeCloudWatchLogsOptions {
  /** At most this many events a page (the service's own caps still apply). */
  pageSize?: number;
  /** Answer every other page empty, as the service may. */
  emptyPages?: boolean;
  /** Calls a second before ThrottlingException. @default GET_LOG_EVENTS_PER_SECOND, the service's quota */
  callsPerSecond?: number;
  /** What time it is for the quota's second. @default Date.now */
  clock?: () => number;
}

export class FakeCloudWatchLogs {
  /** Every GetLogEvents input, in order, refused ones too. */
  readonly calls: Json[] = [];
  /** group → stream → events in timestamp order. */
  private readonly groups = new Map<string, Map<string, LogEvent[]>>();
  private readonly tokens = new Map<string, { stream: string; position: number; forward: boolean }>();
  private throttles = 0;
  private unavailable = 0;
  /** When the calls taken within the last second came (epoch ms). */
  private readonly taken: number[] = [];
  /** Calls throttled for going past the per-second quota (not the scripted ones). */
  throttled = 0;
  private answered = 0;
  /** Calls still open (answers being written), for tests that a reader cut short stopped asking. */
  open = 0;
  private readonly server: Server;

  private constructor(private readonly options: FakeCloudWatchLogsOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  static async start(options: FakeCloudWatchLogsOptions = {}): Promise<FakeCloudWatchLogs> {
    const api = new FakeCloudWatchLogs(options);
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A real CloudWatchLogsClient of this API, with static fake credentials and no retries of its own. */
  client(): CloudWatchLogsClient {
    return new CloudWatchLogsClient({
      region: 'us-east-1',
      endpoint: this.endpoint,
      credentials: { accessKeyId: 'AKIDFAKELOGS', secretAccessKey: 'fake-logs-secret' },
      maxAttempts: 1,
    });
  }

  createLogGroup(name: string): void {
    if (!this.groups.has(name)) this.groups.set(name, new Map());
  }

  /** Appends lines to a stream (made if new), as the awslogs driver's PutLogEvents would, one event each. */
  log(group: string, stream: string, lines: string[], timestamp = Date.now()): void {
    const streams = this.groups.get(group);
    if (!streams) throw new Error(`no log group ${group}: create it first, as the stack does`);
    const events = streams.get(stream) ?? [];
    streams.set(stream, events);
    for (const message of lines) events.push({ timestamp, message, ingestionTime: timestamp });
    events.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** The next `n` GetLogEvents calls answer ThrottlingException. */
  throttle(n: number): void {
    this.throttles = n;
  }

  /** The next `n` GetLogEvents calls answer ServiceUnavailableException (HTTP 500). */
  beUnavailable(n: number): void {
    this.unavailable = n;
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await requestBody(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    this.open++;
    res.once('close', () => this.open--);
    try {
      if (req.method !== 'POST' || req.url !== '/' || target !== `${TARGET_PREFIX}GetLogEvents`) {
        throw new LogsRefusal(
          'InvalidParameterException',
          `the fake answers GetLogEvents only, not ${target}`,
        );
      }
      const input = JSON.parse(body || '{}');
      this.calls.push(input);
      awsJsonAnswer(res, 200, this.getLogEvents(input));
    } catch (error) {
      const type = error instanceof LogsRefusal ? error.type : 'ServiceUnavailableException';
      // Client errors are 400, ServiceUnavailableException 500 (API_GetLogEvents, Errors).
      awsJsonError(res, type === 'ServiceUnavailableException' ? 500 : 400, type, (error as Error).message);
    }
  }

  private getLogEvents(input: Json): Json {
    if (this.throttles > 0) {
      this.throttles--;
      throw throttled();
    }
    this.withinQuota();
    if (this.unavailable > 0) {
      this.unavailable--;
      throw new LogsRefusal('ServiceUnavailableException', 'The service cannot complete the request.');
    }
    refuseGetLogEvents(input);
    const streams = this.groups.get(input.logGroupName ?? input.logGroupIdentifier);
    if (!streams) throw notFound('log group');
    const events = streams.get(input.logStreamName);
    if (!events) throw notFound('log stream');
    const token = input.nextToken === undefined ? undefined : this.tokens.get(input.nextToken);
    refuseToken(input, token);
    if (token && !token.forward) throw new Error('the fake does not page backward');
    if (input.startFromHead !== true && !token) throw new Error('the fake reads from the head only');
    const start = token?.position ?? 0;
    const stream = `${input.logGroupName}:${input.logStreamName}`;
    const page = this.page(events, start, input);
    this.answered++;
    if (page.length > 0 && this.options.emptyPages && this.answered % 2 === 1) {
      // An empty page before the end: a token of its own, never the one passed (that would mean the end).
      return {
        events: [],
        nextForwardToken: this.token(stream, start, true, `${this.answered}`),
        nextBackwardToken: this.token(stream, start, false),
      };
    }
    const position = page.length === 0 ? start : events.indexOf(page[page.length - 1] as LogEvent) + 1;
    return {
      events: page,
      // One position, one token: at the end the token passed comes back.
      nextForwardToken: this.token(stream, position, true),
      nextBackwardToken: this.token(stream, start, false),
    };
  }

  /** Throws ThrottlingException for a call past the quota within the last second (a sliding window). */
  private withinQuota(): void {
    const now = (this.options.clock ?? Date.now)();
    while (this.taken.length > 0 && (this.taken[0] as number) <= now - 1000) this.taken.shift();
    if (this.taken.length >= (this.options.callsPerSecond ?? GET_LOG_EVENTS_PER_SECOND)) {
      this.throttled++;
      throw throttled();
    }
    this.taken.push(now);
  }

  /** Events from `start` within [startTime, endTime), as many as fit the page's caps. */
  private page(events: LogEvent[], start: number, input: Json): LogEvent[] {
    const most = Math.min(input.limit ?? MAX_EVENTS_PER_PAGE, this.options.pageSize ?? MAX_EVENTS_PER_PAGE);
    const page: LogEvent[] = [];
    let bytes = 0;
    for (const event of events.slice(start)) {
      // Sorted by time: one at or past endTime ends the page, and the next call finds it again.
      if (input.endTime !== undefined && event.timestamp >= input.endTime) break;
      if (input.startTime !== undefined && event.timestamp < input.startTime) continue;
      if (page.length >= most || bytes + eventBytes(event.message) > MAX_PAGE_BYTES) break;
      bytes += eventBytes(event.message);
      page.push(event);
    }
    return page;
  }

  private token(stream: string, position: number, forward: boolean, nonce = ''): string {
    const where = `${stream}#${position}#${nonce}`;
    const token = `${forward ? 'f' : 'b'}/${Buffer.from(where).toString('base64url')}`;
    this.tokens.set(token, { stream, position, forward });
    return token;
  }
}
