/**
 * `--only proxy`, `--only scale` and `--only memory` pick a part that needs no browser. options.ts knows the browser
 * parts only, so this takes such a pair out of argv before options.ts reads the rest (--long applies
 * to every part).
 */
export type BrowserlessPart = 'proxy' | 'scale' | 'memory';

export function takeBrowserlessPart(argv: readonly string[]): {
  part: BrowserlessPart | undefined;
  rest: string[];
} {
  const rest = [...argv];
  for (let i = 0; i < rest.length - 1; i++) {
    const part = rest[i + 1];
    if (rest[i] === '--only' && (part === 'proxy' || part === 'scale' || part === 'memory')) {
      rest.splice(i, 2);
      return { part, rest };
    }
  }
  return { part: undefined, rest };
}
