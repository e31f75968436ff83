/** The scale benchmark's results: memory against its target, and command latency with all sessions open. */
import type { Verdict } from './report';
import type { ScaleRun } from './scale-benchmark';
import { type Summary, summarize } from './stats';

export const SCALE_TARGETS = {
  /** Router RSS with a thousand sessions open (the figure). */
  maxRssBytes: 100 * 1024 * 1024,
  /** "Command latency unchanged": p50 with all open over p50 with one, within this machine's noise. */
  latencyMedianRatio: 1.1,
} as const;

export interface ScaleReport {
  run: Omit<ScaleRun, 'latency' | 'scrape'>;
  latency: { oneBefore: Summary; all: Summary; oneAfter: Summary };
  /** All open: commands without and with a scrape every second, and the scrapes themselves. */
  scrape: { quiet: Summary; scraped: Summary; scrapes: Summary; bytes: number; ratio: number };
  /** p50 with all sessions open over the mean p50 of the two one-session phases around it. */
  latencyRatio: number;
  rssVerdict: Verdict;
  latencyVerdict: Verdict;
}

export function scaleReport({ latency, scrape, ...run }: ScaleRun): ScaleReport {
  const quiet = summarize(scrape.latency.quiet);
  const scraped = summarize(scrape.latency.scraped);
  const oneBefore = summarize(latency.oneBefore);
  const all = summarize(latency.all);
  const oneAfter = summarize(latency.oneAfter);
  const latencyRatio = all.median / ((oneBefore.median + oneAfter.median) / 2);
  return {
    run,
    latency: { oneBefore, all, oneAfter },
    scrape: {
      quiet,
      scraped,
      scrapes: summarize(scrape.scrapes.ms),
      bytes: scrape.scrapes.bytes,
      ratio: scraped.median / quiet.median,
    },
    latencyRatio,
    rssVerdict: run.rss.peakWhileOpen < SCALE_TARGETS.maxRssBytes ? 'PASS' : 'MISS',
    latencyVerdict: latencyRatio <= SCALE_TARGETS.latencyMedianRatio ? 'PASS' : 'MISS',
  };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (summary: Summary) =>
  `p50 ${summary.median.toFixed(3)}  p90 ${summary.p90.toFixed(3)}  p99 ${summary.p99.toFixed(3)} ms`;

const BUILD_NAMES = { tsx: 'under tsx', bundled: 'as the production build (plain node)' } as const;

export function formatScaleReport(report: ScaleReport): string {
  const { plan, rss, liveHeap, openMs, build } = report.run;
  const perSession = (liveHeap.open - liveHeap.one) / (plan.sessions - 1);
  return [
    `Scale: ${plan.sessions} sessions open at once on a fake launcher (hub pool → nginx), gridgate's Node server ${BUILD_NAMES[build]}`,
    `opened in ${(openMs / 1000).toFixed(1)} s (${plan.concurrency} at a time)`,
    `gridgate RSS: idle ${mib(rss.idle)}, ${plan.sessions} open ${mib(rss.open)} (peak ${mib(rss.peakWhileOpen)}), all closed ${mib(rss.closed)}`,
    `live V8 heap after a full GC: ${plan.sessions} open ${mib(liveHeap.open)}, one open ${mib(liveHeap.one)}: ${(perSession / 1024).toFixed(1)} KiB per session (the rest of the RSS is the runtime, code, and garbage V8 has not collected yet)`,
    `GET /title, ${plan.commands} one after another per phase:`,
    `  one session open (before):  ${ms(report.latency.oneBefore)}`,
    `  ${plan.sessions} open, random session: ${ms(report.latency.all)}`,
    `  one session open (after):   ${ms(report.latency.oneAfter)}`,
    `GET /title with ${plan.sessions} open, alternating ${report.scrape.quiet.count + report.scrape.scraped.count} commands in windows without and with GET /metrics every second:`,
    `  no scrapes:           ${ms(report.scrape.quiet)}`,
    `  scraped every second: ${ms(report.scrape.scraped)}`,
    `  the scrapes (${report.scrape.scrapes.count}, ${(report.scrape.bytes / 1024).toFixed(1)} KiB each): ${ms(report.scrape.scrapes)}`,
    `=> latency p50 scraped ÷ not scraped ${report.scrape.ratio.toFixed(3)}`,
    `=> peak RSS ${mib(rss.peakWhileOpen)}  target < ${mib(SCALE_TARGETS.maxRssBytes)}  ${report.rssVerdict}`,
    `=> latency p50 all open ÷ one open ${report.latencyRatio.toFixed(3)}  target ≤ ${SCALE_TARGETS.latencyMedianRatio.toFixed(2)}  ${report.latencyVerdict}`,
  ].join('\n');
}
