/**
 * How a kind records sessions whose browsers run on this machine: the local pools' SessionRecordings
 * (pools/local/session-recordings.ts), which container sessions record into too, so a container session's video
 * and log are made, kept by `recording.keep`, served at /video and /logs and listed on the status page exactly
 * as a local session's. For a container, the video is the host-side screencast recorder pointed at the
 * session's DevTools door (pools/container/devtools-door.ts); the log is the container's output
 * (`podman logs`), copied into the recording before the container goes.
 */
import type { Capabilities } from './capabilities';
import type { LaunchRequest, SessionEndReason } from './ports';

/** A session's recording while it runs; opaque to the launcher. */
export interface PendingRecording {
  directory: string;
}

export interface SessionRecorder {
  /** For a session that asked for a video or a log: where it records; undefined when it asked for neither. */
  begin(request: LaunchRequest): Promise<PendingRecording | undefined>;
  /** A recording whose browser never started: it goes. */
  discard(pending: PendingRecording | undefined): Promise<void>;
  /** The browser of this handle records into `pending`. */
  track(handle: string, pending: PendingRecording | undefined): void;
  /** The session is open: its video starts from the DevTools address in these capabilities. */
  opened(handle: string, capabilities: Capabilities): Promise<void>;
  /** Finishes the video (and any console or network capture) while the browser still shows its last page. */
  stopRecording(handle: string): Promise<void>;
  /** Where the session's log is to be written before its browser goes, when it keeps one. */
  logFile(handle: string): string | undefined;
  /** After the browser went: keeps what the session recorded. */
  keep(handle: string, reason: SessionEndReason | undefined, videoNotKept?: string): Promise<void>;
}
