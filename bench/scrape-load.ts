/**
 * What a Prometheus scraping `/metrics` every second costs the command path: with every session of the
 * scale benchmark open, commands are timed in alternating windows, one without scrapes and one with a
 * scraper on its own connection asking every second, so drift on the machine falls on both alike.
 */
import { Agent } from 'undici';
import type { WebDriverClient } from './webdriver-client';

export interface ScrapeLoadPlan {
  /** Length of each window, ms. */
  windowMs: number;
  /** Windows of each kind, alternated (quiet first). */
  windows: number;
  /** How often the scraper asks, ms (1 s: far more often than Prometheus's 15 s default). */
  scrapeEveryMs: number;
}

export const SCRAPE_LOAD_PLAN: ScrapeLoadPlan = { windowMs: 5000, windows: 2, scrapeEveryMs: 1000 };

export interface ScrapeLoadRun {
  plan: ScrapeLoadPlan;
  /** Per command, ms, in the windows without and with scrapes. */
  latency: { quiet: number[]; scraped: number[] };
  /** Per scrape, ms, and the size of its answer in bytes. */
  scrapes: { ms: number[]; bytes: number };
}

export async function measureScrapeLoad(
  client: WebDriverClient,
  origin: string,
  sessions: readonly string[],
  plan: ScrapeLoadPlan = SCRAPE_LOAD_PLAN,
): Promise<ScrapeLoadRun> {
  const scraper = new Agent({ connections: 1 });
  const run: ScrapeLoadRun = { plan, latency: { quiet: [], scraped: [] }, scrapes: { ms: [], bytes: 0 } };
  try {
    for (let window = 0; window < plan.windows * 2; window++) {
      const scraped = window % 2 === 1;
      const scraping = scraped ? scrapeEvery(scraper, origin, plan.scrapeEveryMs, run.scrapes) : undefined;
      const times = await commandsFor(client, origin, sessions, plan.windowMs);
      await scraping?.stop();
      (scraped ? run.latency.scraped : run.latency.quiet).push(...times);
    }
    return run;
  } finally {
    await scraper.close();
  }
}

/** Commands one after another, each to a session picked at random, for `ms`; their times in ms. */
async function commandsFor(
  client: WebDriverClient,
  origin: string,
  sessions: readonly string[],
  ms: number,
): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const session = sessions[Math.floor(Math.random() * sessions.length)] as string;
    times.push((await client.send(origin, 'GET', `/session/${session}/title`)).ms);
  }
  return times;
}

/** GET /metrics now and every `everyMs` until stopped; each scrape's time and size go into `into`. */
function scrapeEvery(
  agent: Agent,
  origin: string,
  everyMs: number,
  into: ScrapeLoadRun['scrapes'],
): { stop(): Promise<void> } {
  let stopped = false;
  let wake: () => void = () => {};
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const response = await agent.request({ origin, path: '/metrics', method: 'GET' });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`GET /metrics answered ${response.statusCode}`);
      into.ms.push(performance.now() - started);
      into.bytes = Buffer.byteLength(text);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, Math.max(0, everyMs - (performance.now() - started)));
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
