/**
 * Hand-written fakes for unit and whole-app tests: a clock the test moves (and a sleep that moves it), a
 * logger that keeps what it was told, fake W3C browser endpoints on 127.0.0.1 that record every request, a
 * launcher that starts them, and an HTTP agent that refuses to leave the loopback interface.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import type { Capabilities } from '../../functions/core/capabilities';
import type {
  Clock,
  LaunchedBrowser,
  Launcher,
  LaunchRequest,
  LogEvent,
  Logger,
  MetricDimensions,
  MetricName,
  Metrics,
  StopContext,
  TaskBilling,
} from '../../functions/core/ports';

/** A clock that only moves when the test moves it; starts on a whole second. */
export class FixedClock implements Clock {
  constructor(private current = Date.UTC(2025, 0, 1, 12, 0, 0)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  /**
   * A launcher's `sleep` that moves this clock instead of waiting, so its deadlines pass at once; like the
   * real one it refuses to wait once the signal is aborted.
   */
  readonly sleep = async (ms: number, signal: AbortSignal): Promise<void> => {
    signal.throwIfAborted();
    this.advance(ms);
  };
}

/** Every measurement, in order, by kind. */
export class RecordingMetrics implements Metrics {
  readonly counts: { name: MetricName; dimensions?: MetricDimensions; value?: number }[] = [];
  readonly timings: { name: MetricName; ms: number; dimensions?: MetricDimensions }[] = [];
  readonly gauges: { name: MetricName; value: number; dimensions?: MetricDimensions }[] = [];

  count(name: MetricName, dimensions?: MetricDimensions, value?: number): void {
    this.counts.push({ name, dimensions, value });
  }

  timing(name: MetricName, ms: number, dimensions?: MetricDimensions): void {
    this.timings.push({ name, ms, dimensions });
  }

  gauge(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.gauges.push({ name, value, dimensions });
  }
}

export class CollectingLogger implements Logger {
  readonly lines: { event: LogEvent; fields: Record<string, unknown> }[] = [];
  log(event: LogEvent, fields: Record<string, unknown> = {}): void {
    this.lines.push({ event, fields });
  }
  events(): LogEvent[] {
    return this.lines.map((line) => line.event);
  }
  fieldsOf(event: LogEvent): Record<string, unknown>[] {
    return this.lines.filter((line) => line.event === event).map((line) => line.fields);
  }
}

export interface RecordedRequest {
  method: string;
  /** Path and query, as the upstream saw them. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export interface FakeUpstreamOptions {
  /** Extra capabilities the browser reports in its new-session answer. */
  capabilities?: Capabilities;
  /** Overrides the answer to POST /session (e.g. a refusal). */
  newSession?: (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): FakeAnswer {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/**
 * A fake W3C remote end: a real node:http server on 127.0.0.1 that creates sessions, records every
 * request it receives, and answers commands with whatever `respond` says (by default `{"value":null}`).
 */
export class FakeUpstream {
  readonly requests: RecordedRequest[] = [];
  readonly sessionIds: string[] = [];
  respond: (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer> = () =>
    jsonAnswer(200, { value: null });
  private readonly server: Server;
  private closed = false;

  private constructor(private readonly options: FakeUpstreamOptions) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        // A `respond` that throws answers 500 with its message, where the test will see it.
        Promise.resolve(recorded)
          .then((request) => this.answer(request))
          .catch((error: unknown) =>
            jsonAnswer(500, { value: { error: 'unknown error', message: String(error) } }),
          )
          .then((answer) => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body))
          .catch(() => res.destroy());
      });
    });
  }

  static async start(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
    const upstream = new FakeUpstream(options);
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    return upstream;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Requests other than the new-session one. */
  commands(): RecordedRequest[] {
    return this.requests.filter((request) => !(request.method === 'POST' && request.path === '/session'));
  }

  private answer(request: RecordedRequest): FakeAnswer | Promise<FakeAnswer> {
    if (request.method === 'POST' && request.path === '/session') {
      if (this.options.newSession) return this.options.newSession(request);
      const sessionId = randomUUID().replaceAll('-', '');
      this.sessionIds.push(sessionId);
      const asked = (JSON.parse(request.body) as { capabilities: { alwaysMatch: Capabilities } }).capabilities
        .alwaysMatch;
      return jsonAnswer(200, {
        value: {
          sessionId,
          capabilities: {
            browserName: asked.browserName ?? 'chrome',
            browserVersion: '156.0.7000.1',
            platformName: 'linux',
            ...this.options.capabilities,
          },
        },
      });
    }
    return this.respond(request);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }
}

export interface FakeLauncherOptions extends FakeUpstreamOptions {
  /** Makes start() fail: always (true) or for the next n starts (a number). */
  failStarts?: boolean | number;
  /** Waits before answering start(); resolves early (rejecting) when the request is aborted. */
  hold?: boolean;
  /** What each browser is billed by, as a cloud launcher reports it. */
  billing?: TaskBilling;
}

/** A Launcher whose browsers are FakeUpstreams; stop() closes the browser, as stopping a real one would. */
export class FakeLauncher implements Launcher {
  readonly started: { handle: string; request: LaunchRequest; upstream: FakeUpstream }[] = [];
  readonly stops: string[] = [];
  /** What each stop was told, in order (StopContext). */
  readonly stopContexts: StopContext[] = [];
  private failures: number;
  private count = 0;

  constructor(private readonly options: FakeLauncherOptions = {}) {
    this.failures = options.failStarts === true ? Number.POSITIVE_INFINITY : (options.failStarts ?? 0) || 0;
  }

  async start(request: LaunchRequest): Promise<LaunchedBrowser> {
    request.signal.throwIfAborted();
    if (this.failures > 0) {
      this.failures--;
      throw new Error('no capacity for a browser');
    }
    if (this.options.hold) {
      await new Promise((_, reject) =>
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
      );
    }
    const upstream = await FakeUpstream.start(this.options);
    const handle = `fake-${++this.count}`;
    this.started.push({ handle, request, upstream });
    const billing = this.options.billing;
    return {
      address: upstream.address,
      handle,
      capabilities: { ...request.capabilities },
      ...(billing ? { billing } : {}),
    };
  }

  async stop(handle: string, context?: StopContext): Promise<void> {
    this.stops.push(handle);
    if (context) this.stopContexts.push(context);
    await this.started.find((entry) => entry.handle === handle)?.upstream.close();
  }

  /** The browser started with this handle (the latest one when no handle is given). */
  upstream(handle?: string): FakeUpstream {
    const entry = handle ? this.started.find((e) => e.handle === handle) : this.started.at(-1);
    if (!entry) throw new Error(`no fake browser ${handle ?? 'started yet'}`);
    return entry.upstream;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.started.map((entry) => entry.upstream.close()));
  }
}

const LOOPBACK_ORIGIN = /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$/;

/**
 * The app's upstream HTTP client for tests: records every request gridgate tries to send and refuses,
 * without touching the network, any origin off the loopback interface.
 */
export class LoopbackOnlyAgent extends Agent {
  readonly dispatched: { origin: string; method: string; path: string }[] = [];

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin);
    this.dispatched.push({ origin, method: options.method, path: options.path });
    if (!LOOPBACK_ORIGIN.test(origin)) throw new Error(`test agent refused a non-loopback origin: ${origin}`);
    return super.dispatch(options, handler);
  }
}
