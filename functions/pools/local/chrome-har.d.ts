/** chrome-har ships no types: the one function gridgate calls, as its README and index.js define it. */
declare module 'chrome-har' {
  export function harFromMessages(
    messages: { method: string; params: Record<string, unknown> }[],
    options?: { includeResourcesFromDiskCache?: boolean; includeTextFromResponseBody?: boolean },
  ): { log: Record<string, unknown> };
}
