/** One wrk run (Debian's /usr/bin/wrk): fixed duration, fixed connections, one thread; its output parsed. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const WRK = '/usr/bin/wrk';

export interface WrkRun {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** Connect, read, write and timeout errors together; a healthy path has none. */
  socketErrors: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

function duration(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!match) throw new Error(`wrk: cannot read the duration "${text}"`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** Reads `wrk --latency` output; throws on non-2xx answers, which would make a broken path look fast. */
export function parseWrk(output: string): WrkRun {
  const percentile = (p: number) => {
    const match = new RegExp(`^\\s+${p}%\\s+(\\S+)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk: no ${p}th percentile in:\n${output}`);
    return duration(match[1] as string);
  };
  const rps = /^Requests\/sec:\s+([\d.]+)$/m.exec(output);
  const requests = /^\s+(\d+) requests in /m.exec(output);
  if (!rps || !requests) throw new Error(`wrk: unexpected output:\n${output}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  if (non2xx) throw new Error(`wrk: ${non2xx[1]} answers were not 2xx:\n${output}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requestsPerSecond: Number(rps[1]),
    requests: Number(requests[1]),
    p50Ms: percentile(50),
    p90Ms: percentile(90),
    p99Ms: percentile(99),
    socketErrors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

export async function runWrk(url: string, connections: number, seconds: number): Promise<WrkRun> {
  const { stdout } = await promisify(execFile)(
    WRK,
    ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '5s', '--latency', url],
    { timeout: (seconds + 30) * 1000 },
  );
  return parseWrk(stdout);
}
