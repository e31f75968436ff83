/**
 * How much of a pod's browser log gridgate reads, live (eks-pod-logs.ts) or to keep (pod-log-archive.ts): a
 * session's is some kilobytes; a browser logging without end is cut here rather than held whole in a
 * Lambda's memory or put in the bucket without bound. Either way a cut log says so, so nobody takes it for
 * the whole.
 */

export const POD_LOG_BYTES = 2 * 1024 * 1024;

/** What to ask the pods/log API for: one byte past the bound says whether the log was cut. */
export const readLimit = (maxBytes: number): number => maxBytes + 1;

/** Written at the end of a log cut at `bytes`. */
export function cutNote(bytes: number): string {
  return `\n[gridgate: the log was longer; only its first ${bytes} bytes are here]\n`;
}

/** The log read with readLimit(maxBytes): whole, or its first maxBytes and the note that it was cut. */
export function withinBound(text: Buffer, maxBytes: number): Buffer {
  return text.length > maxBytes
    ? Buffer.concat([text.subarray(0, maxBytes), Buffer.from(cutNote(maxBytes))])
    : text;
}
