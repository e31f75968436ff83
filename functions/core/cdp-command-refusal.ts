/**
 * Whether one CDP command a local session's client sends may reach its browser, by the host-path rules
 * (cdp-host-path-rules.ts): the one judgement both doors that carry CDP commands ask, the se:cdp socket
 * (socket-command-check.ts) and chromedriver's CDP endpoints on the command path (cdp-over-http.ts).
 */
import { CDP_HOST_PATH_RULES } from './cdp-host-path-rules';
import type { HostPathContext } from './host-path-rules';

// Target.sendMessageToTarget carries a CDP message as a string, which may carry another: enough for any client.
const MAX_NESTING = 4;
export const SEND_MESSAGE_TO_TARGET = 'Target.sendMessageToTarget';

/**
 * Why `command` ({method, params}) is refused, or undefined when it may go on. A rule may confine a
 * parameter in place, and a nested message is written again as checked: the caller sends the command as it
 * is afterwards, never as it came.
 */
export async function refusedCdpCommand(
  command: Record<string, unknown>,
  context: HostPathContext,
  depth = 0,
): Promise<string | undefined> {
  const { method } = command;
  if (typeof method !== 'string') return undefined;
  const params = isRecord(command.params) ? command.params : undefined;
  if (method === SEND_MESSAGE_TO_TARGET) return refusedNested(params ?? {}, context, depth);
  const rule = Object.hasOwn(CDP_HOST_PATH_RULES, method) ? CDP_HOST_PATH_RULES[method] : undefined;
  if (!rule) return undefined;
  // A command without params names no path.
  const refusal = await rule(params ?? {}, context);
  return refusal && `gridgate refuses ${method}: ${refusal}`;
}

/** Target.sendMessageToTarget's message is a CDP message as a string: checked as one, and rewritten as checked. */
async function refusedNested(
  params: Record<string, unknown>,
  context: HostPathContext,
  depth: number,
): Promise<string | undefined> {
  if (typeof params.message !== 'string') return undefined;
  if (depth >= MAX_NESTING) return `gridgate refuses ${SEND_MESSAGE_TO_TARGET}: messages nested this deep`;
  let inner: unknown;
  try {
    inner = JSON.parse(params.message);
  } catch {
    return `gridgate refuses ${SEND_MESSAGE_TO_TARGET}: its message is not JSON`;
  }
  if (!isRecord(inner)) return `gridgate refuses ${SEND_MESSAGE_TO_TARGET}: its message is not a command`;
  const refusal = await refusedCdpCommand(inner, context, depth + 1);
  if (refusal === undefined) params.message = JSON.stringify(inner);
  return refusal;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
