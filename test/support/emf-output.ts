/** For a test file: Powertools' EMF output captured from stdout (metrics on, as in the router), record by record. */
import { afterEach, beforeEach, type MockInstance, vi } from 'vitest';

export interface EmfRecord {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string; StorageResolution?: number }[];
    }[];
  };
  [key: string]: unknown;
}

/** Returns a function that reads the EMF records written so far. */
export function useEmfOutput(): () => EmfRecord[] {
  let write: MockInstance;
  beforeEach(() => {
    // Powertools turns itself off in its dev mode; the router runs without it.
    vi.stubEnv('POWERTOOLS_DEV', '');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    write.mockRestore();
    vi.unstubAllEnvs();
  });
  return () => write.mock.calls.map(([chunk]) => JSON.parse(String(chunk)) as EmfRecord);
}
