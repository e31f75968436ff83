/**
 * `--only proxy`, `--only scale`, `--only memory` and `--only suite` pick a part that needs none of the
 * shared gridgate the browser parts use (the first three need no browser; the suite starts its own remote
 * ends). options.ts knows the browser parts only, so this takes such a pair out of argv before options.ts
 * reads the rest (--long applies to every part).
 */
export type BrowserlessPart = 'proxy' | 'scale' | 'memory' | 'suite';

export function takeBrowserlessPart(argv: readonly string[]): {
  part: BrowserlessPart | undefined;
  rest: string[];
} {
  const rest = [...argv];
  for (let i = 0; i < rest.length - 1; i++) {
    const part = rest[i + 1];
    if (
      rest[i] === '--only' &&
      (part === 'proxy' || part === 'scale' || part === 'memory' || part === 'suite')
    ) {
      rest.splice(i, 2);
      return { part, rest };
    }
  }
  return { part: undefined, rest };
}
