/**
 * The one HTTP client every path is measured with: undici with keep-alive, one connection per
 * origin (commands are sequential), so the only difference between the paths is what is behind the URL.
 * A path's `origin` may carry the prefix its server serves WebDriver under (ggr: `http://host:port/wd/hub`).
 */
import { Agent, type Dispatcher } from 'undici';

export interface WebDriverAnswer {
  /** Milliseconds from sending the request to having read the whole response body. */
  ms: number;
  value: unknown;
}

export class WebDriverClient {
  private readonly agent = new Agent({
    connections: 1,
    keepAliveTimeout: 60_000,
    // Bounded: a hung browser fails the run instead of stalling it (a new session may be slow on 2 cores).
    headersTimeout: 90_000,
    bodyTimeout: 90_000,
  });

  /** Sends one WebDriver command; anything but a 200 with a JSON `value` is an error. */
  async send(
    origin: string,
    method: Dispatcher.HttpMethod,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<WebDriverAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // undici takes a bare origin; a prefix after it belongs to the path. Split before the clock starts.
    const base = new URL(origin);
    const prefix = base.pathname.replace(/\/$/, '');
    const started = process.hrtime.bigint();
    const response = await this.agent.request({
      origin: base.origin,
      path: `${prefix}${path}`,
      method,
      headers:
        payload === undefined ? headers : { ...headers, 'content-type': 'application/json; charset=utf-8' },
      body: payload,
    });
    const text = await response.body.text();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (
      response.statusCode !== 200 ||
      typeof parsed !== 'object' ||
      parsed === null ||
      !('value' in parsed)
    ) {
      throw new Error(`${method} ${origin}${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    }
    return { ms, value: parsed.value };
  }

  /**
   * POST /session (W3C) asking for `alwaysMatch`; answers the new session's ID. `headers`: what the server's
   * new-session route alone asks for (ggr's Basic credentials).
   */
  async newSession(
    origin: string,
    alwaysMatch: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<string> {
    const { value } = await this.send(
      origin,
      'POST',
      '/session',
      { capabilities: { alwaysMatch, firstMatch: [{}] } },
      headers,
    );
    const sessionId = (value as { sessionId?: unknown } | null)?.sessionId;
    if (typeof sessionId !== 'string') throw new Error(`${origin} answered a new session without an ID`);
    return sessionId;
  }

  async deleteSession(origin: string, sessionId: string): Promise<void> {
    await this.send(origin, 'DELETE', `/session/${sessionId}`);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
