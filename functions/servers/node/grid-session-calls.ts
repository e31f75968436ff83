/**
 * A WebSocket session's WebDriver session, made and ended through the grid's own front door as any client's
 * (`POST /session`, `DELETE /session/{id}` on this server's own address): the user's credentials, the quota,
 * the queue, the colour, the pool's choice, the session's record and its end are exactly a WebDriver
 * session's, in a server with worker processes as in one without (a worker relays both to the primary).
 */
import { request } from 'undici';
import { WebDriverError, type WebDriverErrorCode } from '../../core/errors';

export interface GridSessionRequest {
  capabilities: Record<string, unknown>;
  /** Headers of the client's upgrade passed on: authorization, the colour header, host. */
  headers: Record<string, string>;
  signal: AbortSignal;
}

export interface GridSession {
  sessionId: string;
  capabilities: Record<string, unknown>;
}

export class GridSessionCalls {
  /** `origin()`: this server's own address. */
  constructor(readonly origin: () => string) {}

  async create({ capabilities, headers, signal }: GridSessionRequest): Promise<GridSession> {
    const response = await request(`${this.origin()}/session`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ capabilities: { alwaysMatch: capabilities, firstMatch: [{}] } }),
      signal,
    });
    const answer = (await response.body.json().catch(() => ({}))) as { value?: Record<string, unknown> };
    const value = answer.value ?? {};
    if (response.statusCode !== 200 || typeof value.sessionId !== 'string') {
      const code = (
        typeof value.error === 'string' ? value.error : 'session not created'
      ) as WebDriverErrorCode;
      const message = typeof value.message === 'string' ? value.message : `HTTP ${response.statusCode}`;
      throw new WebDriverError(code, message, { status: response.statusCode });
    }
    return {
      sessionId: value.sessionId,
      capabilities: (value.capabilities ?? {}) as Record<string, unknown>,
    };
  }

  /** Ends it; a session the grid ended already (idle, max age) is no error. */
  async end(sessionId: string, authorization: string | undefined): Promise<void> {
    const response = await request(`${this.origin()}/session/${sessionId}`, {
      method: 'DELETE',
      headers: authorization ? { authorization } : {},
    });
    await response.body.dump();
  }
}
