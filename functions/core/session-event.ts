/**
 * Selenium Grid 4.41's session events (`POST /session/{id}/se/event`, each binding's `fireSessionEvent`):
 * `{"eventType": "test:failed", "payload": {…}}`, the event type as Grid checks it. gridgate answers them
 * itself, as Grid's node does, and reads the test's result from the types Grid's recorder acts on.
 */
import { isObject } from './capabilities';
import { invalidArgument } from './errors';
import { parseJsonBody } from './json-body';
import { REASON_LIMIT, TEXT_LIMIT, type TestMarks } from './test-marks';

/** Grid's SessionEventData check of the event type, verbatim. */
const EVENT_TYPE = /^[a-zA-Z][a-zA-Z0-9:._-]*$/;
const EVENT_TYPE_LIMIT = 200;

/** The largest body read: an event is a type and a small payload. */
export const MAX_EVENT_BODY = 64 * 1024;

export interface SessionEvent {
  eventType: string;
  payload: Record<string, unknown>;
}

/** The event in the body, or `invalid argument` (400) saying what is wrong with it. */
export function parseSessionEvent(text: string): SessionEvent {
  const body = parseJsonBody(text, 'session event body');
  if (!isObject(body)) throw invalidArgument('session event body must be a JSON object');
  const { eventType, payload } = body;
  if (typeof eventType !== 'string' || eventType === '') {
    throw invalidArgument("Event type is required. Please provide 'eventType' in payload.");
  }
  if (eventType.length > EVENT_TYPE_LIMIT || !EVENT_TYPE.test(eventType)) {
    throw invalidArgument(
      `eventType must start with a letter and hold only letters, digits, ":", ".", "_" and "-" (at most ${EVENT_TYPE_LIMIT}), not ${JSON.stringify(eventType.slice(0, 80))}`,
    );
  }
  if (payload !== undefined && payload !== null && !isObject(payload)) {
    throw invalidArgument('payload must be a JSON object');
  }
  return { eventType, payload: payload ?? {} };
}

// The types that say how the test went; any other event is answered and changes nothing.
const RESULT_BY_TYPE: Record<string, 'passed' | 'failed'> = {
  'test:passed': 'passed',
  'test:failed': 'failed',
  'test:error': 'failed',
};

/** What the event tells of the test: its result (with the payload's reason) and name, if it says any. */
export function eventMarks({ eventType, payload }: SessionEvent): TestMarks {
  const status = RESULT_BY_TYPE[eventType.toLowerCase()];
  const reason = firstText(payload, ['reason', 'error', 'message'], REASON_LIMIT);
  const name = firstText(payload, ['testName', 'name'], TEXT_LIMIT);
  return {
    ...(status ? { result: { status, ...(reason ? { reason } : {}) } } : {}),
    ...(name ? { name } : {}),
  };
}

/** Grid's answer to a session event: `{"value": {"success", "eventType", "timestamp"}}`. */
export function sessionEventAnswer(eventType: string, at: number) {
  return { value: { success: true, eventType, timestamp: new Date(at).toISOString() } };
}

function firstText(payload: Record<string, unknown>, keys: string[], limit: number): string | undefined {
  for (const key of keys) {
    const value = payload[key];
    if (typeof value === 'string' && value.trim() !== '') return value.slice(0, limit);
  }
  return undefined;
}
