/**
 * An ended (or ending) session that has recordings, as the status page lists it. No Node import here: the
 * status page's browser-side code reads it too.
 */
import type { TestMarks } from './test-marks';

export interface RecordedSession extends Omit<TestMarks, 'name'> {
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
  /** Sizes are absent where the list does not know them (recordings in a bucket, listed from the store). */
  video?: { size?: number; format: 'mp4' | 'webm'; fileName: string };
  log?: { size?: number; fileName: string };
  /** The browser console the grid captured (text), and its network traffic (HAR 1.2). */
  console?: { size?: number; fileName: string };
  har?: { size?: number; fileName: string };
  /** Why its video was recorded but not kept (recording.keep: failed), for the page to say so. */
  videoNotKept?: string;
  /** Whether the last frame the browser showed was kept (as JPEG). */
  screenshot?: boolean;
  /**
   * Where its browser ran, for a source that finds recordings by it (an ecs log by its task); never shown
   * on the page.
   */
  ranAt?: { address: string; handle: string; upstreamId: string };
}
