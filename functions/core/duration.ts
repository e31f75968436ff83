/** Durations written as people write them in config files: "90s", "5m", "1h30m", "250ms". */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

/** Milliseconds for a duration string, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (text.length === 0) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(PART)) {
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    consumed += match[0].length;
  }
  return consumed === text.length ? Math.round(total) : undefined;
}

/** The shortest readable form of a duration, for messages: 300000 → "5m", 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, seconds] of [
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / seconds);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * seconds;
  }
  return parts.join('');
}
