/**
 * ecs sessions' browser logs from CloudWatch Logs, read by a real CloudWatchLogsClient from the fake
 * GetLogEvents (test/support/fake-cloudwatch-logs.ts, which refuses what the service refuses): the stream
 * the awslogs driver names, every page from the head until the token comes back, throttling waited out with
 * backoff, a running session's log as far as it was written, and nothing read once the reader goes away.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realSleep } from '../../../functions/adapters/aws/retry-pacing';
import type { Artifact, ArtifactSession } from '../../../functions/core/artifact-ports';
import { parseConfig } from '../../../functions/core/config';
import { WebDriverError } from '../../../functions/core/errors';
import { browserLogStream } from '../../../functions/pools/ecs/browser-log-stream';
import {
  CloudWatchBrowserLogs,
  type CloudWatchBrowserLogsOptions,
  LOG_KEEP_MS,
  LOG_READ_PACING,
  LOG_READ_TRIES,
} from '../../../functions/pools/ecs/cloudwatch-browser-logs';
import { GET_LOG_EVENTS_PER_SECOND } from '../../support/cloudwatch-logs-api-rules';
import { FakeCloudWatchLogs, type FakeCloudWatchLogsOptions } from '../../support/fake-cloudwatch-logs';
import { until } from '../../support/until';

const GROUP = 'GridgateStack-BrowsersLogs1A2B3C-xyz';
const config = parseConfig(
  {
    browsers: { chrome: { versions: { stable: { pools: ['fargate', 'hub'] } } } },
    pools: {
      fargate: { kind: 'ecs', containerName: 'chrome' },
      hub: { kind: 'hub', url: 'http://127.0.0.1:4444/wd/hub' },
    },
  },
  { builtInBrowserVersion: 'stable' },
);
const session: ArtifactSession = {
  key: '0011223344556677',
  user: 'alice',
  pool: 'fargate',
  address: '10.0.1.5:4444',
  upstreamId: 'd1e2f3',
  handle: '0123456789abcdef0123456789abcdef',
};
const STREAM = `fargate/chrome/${session.handle}`;
const lines = (n: number, width = 0) => Array.from({ length: n }, (_, i) => `line ${i} ${'x'.repeat(width)}`);

// Started by each test (logsWith), closed after it.
let api: FakeCloudWatchLogs | undefined;
const fake = (): FakeCloudWatchLogs => {
  if (!api) throw new Error('no fake CloudWatch Logs started');
  return api;
};
let waits: number[];

beforeEach(() => {
  waits = [];
});
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function logsWith(
  options: FakeCloudWatchLogsOptions = {},
  overrides: Partial<CloudWatchBrowserLogsOptions> = {},
): Promise<CloudWatchBrowserLogs> {
  const started = await FakeCloudWatchLogs.start(options);
  api = started;
  started.createLogGroup(GROUP);
  return new CloudWatchBrowserLogs({
    logs: started.client(),
    group: GROUP,
    poolOf: (claims) => config.pools[claims.pool],
    sleep: async (ms) => {
      waits.push(ms);
    },
    // Unpaced unless a test is about pacing: the waits recorded are then the backoff's alone.
    pacing: UNPACED,
    ...overrides,
  });
}

const UNPACED = { perSecond: Number.POSITIVE_INFINITY, maxWaitMs: 0 };

async function text(artifact: Artifact | undefined): Promise<string> {
  if (artifact?.kind !== 'stream') throw new Error(`not a stream: ${JSON.stringify(artifact)}`);
  const chunks: Buffer[] = [];
  // Bytes, as a Response body takes them (a string chunk fails there).
  for await (const chunk of artifact.body) chunks.push(expectBuffer(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function expectBuffer(chunk: unknown): Buffer {
  expect(Buffer.isBuffer(chunk)).toBe(true);
  return chunk as Buffer;
}

describe('CloudWatchBrowserLogs', () => {
  it('reads the stream the awslogs driver names: prefix (the pool), container, task ID', () => {
    expect(browserLogStream({ name: 'fargate', containerName: 'chrome' }, session.handle)).toBe(STREAM);
  });

  it('serves every page from the head, in order, until the token passed comes back', async () => {
    const logs = await logsWith({ pageSize: 3, emptyPages: true });
    // Few enough pages to stay under the service's 10 calls a second, which these unpaced reads would pass.
    fake().log(GROUP, STREAM, lines(11), Date.now() - 60_000);
    const artifact = await logs.find(session, 'log');
    expect(artifact).toMatchObject({
      kind: 'stream',
      status: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `inline; filename="${session.key}.log"`,
        'cache-control': 'private, no-cache',
      },
    });
    expect(await text(artifact)).toBe(
      lines(11)
        .map((line) => `${line}\n`)
        .join(''),
    );
    // 4 pages (the last one partly full), 4 empty ones between them, and the one that gives the token back.
    expect(fake().calls).toHaveLength(9);
    expect(fake().calls[0]).not.toHaveProperty('nextToken');
    for (const call of fake().calls) {
      expect(call).toMatchObject({ logGroupName: GROUP, logStreamName: STREAM, startFromHead: true });
      expect(call).not.toHaveProperty('limit');
    }
  });

  it('pages past the 1 MB a GetLogEvents answers at most', async () => {
    const logs = await logsWith();
    fake().log(GROUP, STREAM, lines(300, 5000), Date.now() - 60_000);
    const served = await text(await logs.find(session, 'log'));
    expect(served.split('\n')).toHaveLength(301);
    expect(fake().calls.length).toBe(3);
  });

  it('has no log for a task that never logged, nor when the group is gone', async () => {
    const logs = await logsWith();
    expect(await logs.find(session, 'log')).toBeUndefined();
    const elsewhere = new CloudWatchBrowserLogs({
      logs: fake().client(),
      group: 'no-such-group',
      poolOf: (claims) => config.pools[claims.pool],
    });
    fake().log(GROUP, STREAM, ['there']);
    expect(await elsewhere.find(session, 'log')).toBeUndefined();
  });

  it('reads nothing for videos, last frames, or sessions of other pool kinds', async () => {
    const logs = await logsWith();
    fake().log(GROUP, STREAM, ['there']);
    expect(await logs.find(session, 'video')).toBeUndefined();
    expect(await logs.find(session, 'screenshot')).toBeUndefined();
    expect(await logs.find({ ...session, pool: 'hub' }, 'log')).toBeUndefined();
    expect(fake().calls).toEqual([]);
  });

  it('waits out throttling with a growing backoff and still serves the whole log', async () => {
    const logs = await logsWith({ pageSize: 2 });
    fake().log(GROUP, STREAM, lines(5), Date.now() - 60_000);
    fake().throttle(3);
    expect(await text(await logs.find(session, 'log'))).toBe(
      lines(5)
        .map((line) => `${line}\n`)
        .join(''),
    );
    expect(waits).toHaveLength(3);
    // Equal jitter: each wait is within [half, all] of a ceiling that doubles from 250 ms.
    waits.forEach((ms, n) => {
      expect(ms).toBeGreaterThanOrEqual(125 * 2 ** n);
      expect(ms).toBeLessThanOrEqual(250 * 2 ** n);
    });
  });

  it('waits out an unavailable service too', async () => {
    const logs = await logsWith();
    fake().log(GROUP, STREAM, ['one'], Date.now() - 60_000);
    fake().beUnavailable(2);
    expect(await text(await logs.find(session, 'log'))).toBe('one\n');
    expect(waits).toHaveLength(2);
  });

  it('answers 503 with Retry-After when throttling outlasts every try', async () => {
    const logs = await logsWith();
    fake().log(GROUP, STREAM, ['one']);
    fake().throttle(LOG_READ_TRIES);
    const refused = await logs.find(session, 'log').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebDriverError);
    expect(refused).toMatchObject({ code: 'unknown error', status: 503, headers: { 'retry-after': '5' } });
    expect(fake().calls).toHaveLength(LOG_READ_TRIES);
  });

  it('reads a running session’s log as far as it was written when asked', async () => {
    const asked = Date.now();
    const logs = await logsWith({ pageSize: 2 }, { clock: { now: () => asked } });
    fake().log(GROUP, STREAM, ['before 1', 'before 2', 'before 3'], asked - 1000);
    // Written after the request began: a later request gets them.
    fake().log(GROUP, STREAM, ['after'], asked + 1000);
    expect(await text(await logs.find(session, 'log'))).toBe('before 1\nbefore 2\nbefore 3\n');
    for (const call of fake().calls) expect(call.endTime).toBe(asked);
  });

  it('answers a HEAD after one read, without paging', async () => {
    const logs = await logsWith({ pageSize: 1 });
    fake().log(GROUP, STREAM, lines(5), Date.now() - 60_000);
    expect(await text(await logs.find(session, 'log', { method: 'HEAD' }))).toBe('');
    expect(fake().calls).toHaveLength(1);
  });

  it('stops asking for pages once the reader goes away', async () => {
    // Longer than what is read before answering: the rest streams as the reader asks.
    const logs = await logsWith({ pageSize: 1 }, { bufferBytes: 1 });
    fake().log(GROUP, STREAM, lines(50), Date.now() - 60_000);
    const artifact = await logs.find(session, 'log');
    if (artifact?.kind !== 'stream') throw new Error('no stream');
    const reader = artifact.body[Symbol.asyncIterator]();
    await reader.next();
    await reader.next();
    artifact.body.destroy();
    await until(() => fake().open === 0, 'no GetLogEvents is open');
    const asked = fake().calls.length;
    expect(asked).toBeLessThan(10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake().calls.length).toBe(asked);
  });
});

describe('CloudWatchBrowserLogs within the GetLogEvents quota', () => {
  it('reads a log once for everyone asking at the same time or within LOG_KEEP_MS', async () => {
    let now = Date.now();
    const logs = await logsWith({ pageSize: 2 }, { clock: { now: () => now } });
    fake().log(GROUP, STREAM, lines(3), now - 60_000);
    const whole = lines(3)
      .map((line) => `${line}\n`)
      .join('');
    const answers = await Promise.all(Array.from({ length: 10 }, () => logs.find(session, 'log')));
    for (const answer of answers) expect(await text(answer)).toBe(whole);
    // Two pages and the one that gives the token back, once for the ten.
    expect(fake().calls).toHaveLength(3);
    now += LOG_KEEP_MS - 1;
    expect(await text(await logs.find(session, 'log'))).toBe(whole);
    expect(fake().calls).toHaveLength(3);
    now += 1;
    fake().log(GROUP, STREAM, ['later'], now - 1);
    expect(await text(await logs.find(session, 'log'))).toBe(`${whole}later\n`);
    expect(fake().calls).toHaveLength(6);
  });

  it('answers a read whole with its length, so a throttled read is a 503 and never a body cut short', async () => {
    const logs = await logsWith(
      { pageSize: 1 },
      {
        clock: { now: () => 1_000_000 },
        pacing: { perSecond: 1000, maxWaitMs: 10_000 },
        // From the third page's turn on, every try is throttled.
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length === 2) fake().throttle(LOG_READ_TRIES);
        },
      },
    );
    fake().log(GROUP, STREAM, lines(3), 1000);
    const refused = await logs.find(session, 'log').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebDriverError);
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
    expect(fake().calls).toHaveLength(2 + LOG_READ_TRIES);
    // Once the service answers again, the same log comes whole, with its length.
    const again = new CloudWatchBrowserLogs({
      logs: fake().client(),
      group: GROUP,
      poolOf: (claims) => config.pools[claims.pool],
      clock: { now: () => 1_000_000 },
    });
    expect(await again.find(session, 'log')).toMatchObject({
      headers: { 'content-length': String(Buffer.byteLength(`${lines(3).join('\n')}\n`)) },
    });
  });

  it('paces each process to a fifth of the service’s quota, so five heads beside the console stay within it', () => {
    expect(LOG_READ_PACING.perSecond * 5).toBe(GET_LOG_EVENTS_PER_SECOND);
  });

  it('stays within the service’s rate however many logs are asked for at once', async () => {
    // The fake refuses calls past its per-second quota, as the service does; the reads are paced below it.
    const quota = 20;
    const logs = await logsWith(
      { pageSize: 2, callsPerSecond: quota },
      { pacing: { perSecond: quota * 0.8, maxWaitMs: 10_000 }, sleep: realSleep },
    );
    const sessions = Array.from({ length: 8 }, (_, i) => ({ ...session, handle: `${'a'.repeat(31)}${i}` }));
    for (const one of sessions)
      fake().log(GROUP, `fargate/chrome/${one.handle}`, lines(4), Date.now() - 60_000);
    const served = await Promise.all(sessions.map(async (one) => text(await logs.find(one, 'log'))));
    expect(new Set(served)).toEqual(
      new Set([
        lines(4)
          .map((line) => `${line}\n`)
          .join(''),
      ]),
    );
    expect(fake().calls).toHaveLength(8 * 3);
    expect(fake().throttled).toBe(0);
  });

  it('refuses at once with a W3C 503 a read whose turn would come past the longest wait', async () => {
    const logs = await logsWith(
      {},
      { pacing: { perSecond: 1, maxWaitMs: 2000 }, clock: { now: () => 1_000_000 } },
    );
    fake().log(GROUP, STREAM, ['one'], 1000);
    const other = { ...session, handle: 'ffffffffffffffffffffffffffffffff' };
    fake().log(GROUP, `fargate/chrome/${other.handle}`, ['two'], 1000);
    // One page and the call that gives its token back: the turns at 0 and 1 s.
    expect(await text(await logs.find(session, 'log'))).toBe('one\n');
    // The next at 2 s is given; the one after it would be at 3 s, past the 2 s anyone may wait.
    const refused = await logs.find(other, 'log').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebDriverError);
    expect(refused).toMatchObject({ code: 'unknown error', status: 503, headers: { 'retry-after': '2' } });
    expect(String((refused as Error).message)).toMatch(/at most 1 times a second/);
    expect(fake().calls).toHaveLength(3);
    expect(waits).toEqual([1000, 2000]);
  });
});
