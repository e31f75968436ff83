/**
 * What a local session's CDP (se:cdp) or BiDi (webSocketUrl) client may send its browser, message by message:
 * commands that name a place on the browser's machine are held to the session's folder (cdp- and
 * bidi-host-path-rules.ts), and a refused one is answered in the protocol's own error shape and never reaches
 * the browser. Most messages name no such command; those are relayed as they came, unparsed.
 */
import { BIDI_CDP_CARRIERS, BIDI_HOST_PATH_RULES } from './bidi-host-path-rules';
import { isRecord, refusedCdpCommand, SEND_MESSAGE_TO_TARGET } from './cdp-command-refusal';
import { CDP_HOST_PATH_RULES } from './cdp-host-path-rules';
import type { HostPathContext } from './host-path-rules';

export type SocketProtocol = 'cdp' | 'bidi';

/** What becomes of a client's message: the text the browser gets, or the answer the client gets instead. */
export type Verdict = { forward: string } | { answer: string };

// CDP's own code for a server error (Chromium answers its own refusals with it), and JSON-RPC's parse error.
const CDP_SERVER_ERROR = -32000;
const CDP_PARSE_ERROR = -32700;

/**
 * The text every checked message contains. A JSON string can spell any character as \uXXXX, so a message
 * with such an escape is parsed too; otherwise a method's name is in the message as it is dispatched. One
 * expression over the message read as latin1: the names are ASCII, and in UTF-8 ASCII bytes are only ever
 * those characters (ws refuses text that is not UTF-8), so nothing the browser reads as a name is missed.
 */
function needlesOf(protocol: SocketProtocol): RegExp {
  const cdp = [...Object.keys(CDP_HOST_PATH_RULES), SEND_MESSAGE_TO_TARGET];
  // A BiDi client reaches CDP through chromedriver's carriers, whose inner method is named in the message too.
  const names = protocol === 'cdp' ? cdp : [...Object.keys(BIDI_HOST_PATH_RULES), ...cdp];
  return new RegExp([...names, '\\u'].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
}

const NEEDLES: Record<SocketProtocol, RegExp> = { cdp: needlesOf('cdp'), bidi: needlesOf('bidi') };

export class SocketCommandCheck {
  private readonly needles: RegExp;

  constructor(
    private readonly protocol: SocketProtocol,
    private readonly context: HostPathContext,
  ) {
    this.needles = NEEDLES[protocol];
  }

  /** Whether the message may be a checked command; one that is not is relayed as it came. */
  mayCheck(message: Buffer): boolean {
    return this.needles.test(message.toString('latin1'));
  }

  /**
   * The checked message's fate. A message that may go is relayed as parsed and written again, so the browser
   * reads exactly what was checked (no duplicate key or escape read one way here and another there).
   */
  async decide(message: Buffer): Promise<Verdict> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.toString('utf8'));
    } catch {
      return { answer: this.unreadable() };
    }
    if (!isRecord(parsed)) return { answer: this.unreadable() };
    const refusal =
      this.protocol === 'cdp'
        ? await refusedCdpCommand(parsed, this.context)
        : await this.refusedBidi(parsed);
    if (refusal === undefined) return { forward: JSON.stringify(parsed) };
    return { answer: this.refusalAnswer(parsed, refusal) };
  }

  private async refusedBidi(command: Record<string, unknown>): Promise<string | undefined> {
    const { method } = command;
    const params = isRecord(command.params) ? command.params : {};
    if (typeof method !== 'string') return undefined;
    if (BIDI_CDP_CARRIERS.has(method)) {
      // The inner params are checked (and confined) in place, as part of the message written again.
      return refusedCdpCommand({ method: params.method, params: params.params }, this.context);
    }
    const rule = Object.hasOwn(BIDI_HOST_PATH_RULES, method) ? BIDI_HOST_PATH_RULES[method] : undefined;
    const refusal = rule && (await rule(params, this.context));
    return refusal && `gridgate refuses ${method}: ${refusal}`;
  }

  private refusalAnswer(command: Record<string, unknown>, message: string): string {
    const id = command.id ?? null;
    if (this.protocol === 'bidi')
      return JSON.stringify({ type: 'error', id, error: 'invalid argument', message });
    // A command sent to a target's session is answered on that session (flattened mode).
    const session = typeof command.sessionId === 'string' ? { sessionId: command.sessionId } : {};
    return JSON.stringify({ id, error: { code: CDP_SERVER_ERROR, message }, ...session });
  }

  /** A message that names a checked command but cannot be read: refused, since the browser's parser might read it. */
  private unreadable(): string {
    const message = 'gridgate refuses a message that is not a JSON object';
    return this.protocol === 'bidi'
      ? JSON.stringify({ type: 'error', id: null, error: 'invalid argument', message })
      : JSON.stringify({ error: { code: CDP_PARSE_ERROR, message } });
  }
}
