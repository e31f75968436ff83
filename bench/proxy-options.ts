/**
 * `--only proxy` picks the proxy benchmark alone. options.ts knows the browser parts only, so this
 * takes that pair out of argv before options.ts reads the rest (--long applies to every part).
 */
export function takeProxyOnly(argv: readonly string[]): { proxyOnly: boolean; rest: string[] } {
  const rest = [...argv];
  for (let i = 0; i < rest.length - 1; i++) {
    if (rest[i] === '--only' && rest[i + 1] === 'proxy') {
      rest.splice(i, 2);
      return { proxyOnly: true, rest };
    }
  }
  return { proxyOnly: false, rest };
}
