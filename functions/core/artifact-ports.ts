/**
 * The port for a session's recordings (its video and its browser driver's log): where they are kept and how
 * people get them. One source per pool kind (GridDeps.artifacts, chosen by core/artifact-location.ts): local
 * pools keep them on this machine's disk; other kinds may keep them in a bucket (a presigned redirect) or
 * pass the request on to the hub that recorded them.
 */
import type { Readable } from 'node:stream';
import type { RecordedSession } from './recorded-session';

/** A video, the browser driver's log, and the console log and HAR the grid captured itself (local pools). */
export type ArtifactKind = 'video' | 'log' | 'console' | 'har';

/** Which session's recordings, by what its session ID carries and whose it is. */
export interface ArtifactSession {
  key: string;
  user: string;
  pool: string;
  /** host:port of the browser's WebDriver endpoint (a hub's, for hub pools). */
  address: string;
  /** The browser's own session ID (what a hub names its recordings by). */
  upstreamId: string;
  handle: string;
}

/** What a request for an artifact gets. */
export type Artifact =
  /** Bytes on this machine's disk; `live` while the session still runs (a log as far as it is written). */
  | {
      kind: 'file';
      path: string;
      size: number;
      contentType: string;
      fileName: string;
      live: boolean;
    }
  /** Somewhere else the client fetches it itself from, e.g. a short-lived presigned URL. */
  | { kind: 'redirect'; location: string }
  /** An answer passed through as it comes (a hub's). */
  | { kind: 'stream'; status: number; headers: Record<string, string>; body: Readable };

/** How the artifact is asked for, where a source passes the request on (a hub serves the bytes itself). */
export interface ArtifactAsk {
  method: 'GET' | 'HEAD';
  /** The request's Range and If-Range (RFC 9110 §14.2, §13.1.5), for a video element seeking. */
  range?: string;
  ifRange?: string;
}

/** What removing an artifact came to: removed here, or the answer of the hub that keeps it. */
export type RemovedArtifact = { kind: 'removed' } | Extract<Artifact, { kind: 'stream' }>;

// Lives apart, in a file with no Node import, for the status page's browser-side code.
export type { RecordedSession };

/** What recordings use where they are kept, against the config's bounds. */
export interface ArtifactUsage {
  /** Where, for people: "disk /tmp/gridgate-recordings", a bucket's name. */
  where: string;
  bytes: number;
  sessions: number;
  maxBytes: number;
  retentionMs: number;
}

export interface ArtifactSource {
  /**
   * The session's artifact, or undefined when there is none to give (never recorded, not finished yet,
   * expired). The caller has already checked that the asker may have it.
   */
  find(
    session: ArtifactSession,
    kind: ArtifactKind | 'screenshot',
    ask?: ArtifactAsk,
  ): Promise<Artifact | undefined>;
  /**
   * Removes the session's video or log (Selenoid's `DELETE /video/{id}.mp4`); undefined when there is none
   * to remove. A source without it keeps its artifacts until they expire.
   */
  remove?(session: ArtifactSession, kind: ArtifactKind): Promise<RemovedArtifact | undefined>;
  /** The recorded session of this key, if this source keeps it: whose it is, for an admin asking. */
  recorded?(key: string): Promise<RecordedSession | undefined>;
  /** Every recorded session kept here, newest first, for the status page. */
  list?(): Promise<RecordedSession[]>;
  /** Space used, for /status. */
  usage?(): Promise<ArtifactUsage>;
}
