/**
 * An ended (or ending) session that has recordings, as the status page lists it. No Node import here: the
 * status page's browser-side code reads it too.
 */
export interface RecordedSession {
  key: string;
  user: string;
  pool: string;
  browserName: string;
  browserVersion: string;
  /** The test's name (se:name, selenoid:options.name). */
  name?: string;
  createdAt: number;
  endedAt?: number;
  endReason?: string;
  video?: { size: number; format: 'mp4' | 'webm'; fileName: string };
  log?: { size: number; fileName: string };
  /** Whether the last frame the browser showed was kept (as JPEG). */
  screenshot?: boolean;
}
