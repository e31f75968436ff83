/**
 * The sessions this router ended lately, and why: a later command for one is refused here with that
 * reason (W3C `invalid session id`) instead of going to a browser or hub that no longer has it, whose own
 * 404 could not say why. Bounded by count, the oldest forgotten first, so no number of sessions grows it
 * past its capacity; a forgotten session is still refused, by its browser or hub and the store's record.
 */
import { formatDuration } from './duration';
import type { SessionEndReason, SessionRecord } from './ports';

/** Well above the sessions one router ends within any session's maximum age at ordinary rates. */
export const ENDED_SESSIONS_REMEMBERED = 10_000;

/** What a message about the end needs: why, and the limits that applied when a limit ended it. */
export type EndedSession = Partial<Pick<SessionRecord, 'idleTimeoutMs' | 'maxAgeMs'>> & {
  reason: SessionEndReason;
};

export class EndedSessions {
  // By session key, oldest first: a Map iterates in insertion order.
  private readonly ended = new Map<string, EndedSession>();

  /**
   * `told`: called for each session this process ends, so the other processes of one server (its
   * workers, its primary) refuse that session's commands too; what they say arrives through heard().
   */
  constructor(
    readonly capacity = ENDED_SESSIONS_REMEMBERED,
    private readonly told?: (key: string, session: EndedSession) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('capacity must be a positive integer');
  }

  remember(key: string, session: EndedSession): void {
    this.heard(key, session);
    this.told?.(key, session);
  }

  /** A session another process of this server ended: remembered as remember() does, told to nobody. */
  heard(key: string, session: EndedSession): void {
    this.ended.delete(key);
    this.ended.set(key, session);
    if (this.ended.size > this.capacity) this.ended.delete(this.ended.keys().next().value as string);
  }

  /** Every session remembered, oldest first: what a process of this server that starts later must know. */
  entries(): [key: string, session: EndedSession][] {
    return [...this.ended];
  }

  recall(key: string): EndedSession | undefined {
    return this.ended.get(key);
  }

  get size(): number {
    return this.ended.size;
  }
}

/** Why a session ended, as the rest of "session ended: …" in an `invalid session id` message. */
export function describeEnd(
  end: ({ reason?: SessionEndReason } & Omit<EndedSession, 'reason'>) | undefined,
): string {
  switch (end?.reason) {
    case 'deleted':
      return 'it was deleted';
    case 'idle timeout':
      return end.idleTimeoutMs === undefined
        ? 'no command within its idle timeout'
        : `no command for ${formatDuration(end.idleTimeoutMs)} (idle timeout)`;
    case 'max age':
      return end.maxAgeMs === undefined
        ? 'it reached its maximum age'
        : `it reached its maximum age of ${formatDuration(end.maxAgeMs)}`;
    case 'server shutdown':
      return 'the grid shut down';
    case 'reclaimed':
      return 'its platform took the browser back (a Fargate Spot interruption)';
    case 'client gone':
      return 'its client went away while it was being created';
    case 'creation failed':
      return 'it could not be created';
    default:
      return 'the browser exited or crashed';
  }
}
