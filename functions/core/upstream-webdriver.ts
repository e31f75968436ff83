/**
 * The port the new-session use case speaks to a started browser or hub through: the WebDriver new-session
 * exchange, and making the browser send its session's colour. webdriver-client/upstream-new-session.ts speaks it on the
 * wire.
 */
import type { Capabilities } from './capabilities';
import type { UpstreamEndpoint } from './upstream-endpoint';

/** A browser's answer to the new-session request: its session ID and capabilities, and whatever else it sent. */
export interface CreatedSession {
  sessionId: string;
  capabilities: Capabilities;
  [key: string]: unknown;
}

export interface UpstreamNewSession {
  endpoint: UpstreamEndpoint;
  /** Sent as `alwaysMatch`: the matched capabilities with the pool's settings filled in. */
  capabilities: Capabilities;
  /**
   * A hub (other people's software) rather than a browser gridgate started: its JSON Wire answers, answers
   * without capabilities and bare redirects to the new session are accepted.
   */
  hub: boolean;
  /** Another pool is left to try: a full Selenoid hub is asked to refuse at once rather than queue. */
  noWait: boolean;
  signal: AbortSignal;
}

/** A browser that should send `header: color` on its requests: where it is and what it answered. */
export interface ColorHeaderTarget {
  endpoint: UpstreamEndpoint;
  /** The browser's own session ID. */
  upstreamId: string;
  /** What the browser answered the new session with. */
  capabilities: Capabilities;
}

export interface UpstreamWebDriver {
  /**
   * Opens a WebDriver session. Throws LaunchFailure (core/host-choice) `unreachable` or `refused` when this
   * browser or hub cannot serve (another pool may), `invalid argument` when it refused the capabilities
   * themselves, and a 502 `unknown error` when a hub answered without a session (a protocol error).
   */
  newSession(request: UpstreamNewSession): Promise<CreatedSession>;
  /** Has the browser send the header on its page's requests; a LaunchFailure when it cannot. */
  sendColorHeader(
    target: ColorHeaderTarget,
    header: string,
    color: string,
    signal: AbortSignal,
  ): Promise<void>;
}
