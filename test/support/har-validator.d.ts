/** har-validator ships no types: its promise API's whole-HAR check, as lib/promise.js defines it. */
declare module 'har-validator' {
  /** Resolves with the HAR when it matches the HAR 1.2 schema; rejects with the schema's errors otherwise. */
  export function har(data: unknown): Promise<unknown>;
}
