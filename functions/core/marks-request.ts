/**
 * The body of the status page's API call that marks a session after it ran (`PUT /ui/api/sessions/{id}`),
 * for frameworks that learn a test's result only at its end: `{"status": "passed" | "failed", "reason",
 * "name", "build", "project", "labels"}`, as BrowserStack's REST API takes it, or Sauce Labs' `{"passed":
 * true | false}`. Every field is optional; an unknown one, or a value of the wrong type, is `invalid argument`.
 */
import { isObject } from './capabilities';
import { invalidArgument } from './errors';
import { parseJsonBody } from './json-body';
import { labelsProblem, REASON_LIMIT, TEXT_LIMIT, type TestMarks } from './test-marks';

export const MAX_MARKS_BODY = 16 * 1024;

const FIELDS = new Set(['status', 'passed', 'reason', 'name', 'build', 'project', 'labels']);

export function parseMarksBody(json: string): TestMarks {
  const body = parseJsonBody(json, 'session marks body');
  if (!isObject(body)) throw invalidArgument('session marks body must be a JSON object');
  const unknown = Object.keys(body).find((key) => !FIELDS.has(key));
  if (unknown) {
    throw invalidArgument(
      `unknown field ${JSON.stringify(unknown.slice(0, 80))}: known are ${[...FIELDS].join(', ')}`,
    );
  }
  const status = resultStatus(body.status, body.passed);
  if (!status && body.reason !== undefined) throw invalidArgument('reason needs a status');
  const reason = text(body.reason, 'reason', REASON_LIMIT);
  const marks: TestMarks = status ? { result: { status, ...(reason ? { reason } : {}) } } : {};
  for (const field of ['name', 'build', 'project'] as const) {
    const value = text(body[field], field, TEXT_LIMIT);
    if (value) marks[field] = value;
  }
  if (body.labels !== undefined) {
    const problem = labelsProblem(body.labels);
    if (problem) throw invalidArgument(`labels ${problem}`);
    marks.labels = body.labels as Record<string, string>;
  }
  if (Object.keys(marks).length === 0) throw invalidArgument('session marks body names nothing to mark');
  return marks;
}

function resultStatus(status: unknown, passed: unknown): 'passed' | 'failed' | undefined {
  if (status !== undefined && passed !== undefined) throw invalidArgument('give status or passed, not both');
  if (passed !== undefined) {
    if (typeof passed !== 'boolean') throw invalidArgument('passed must be true or false');
    return passed ? 'passed' : 'failed';
  }
  if (status === undefined) return undefined;
  if (status !== 'passed' && status !== 'failed') {
    throw invalidArgument(`status must be "passed" or "failed", not ${JSON.stringify(status)}`);
  }
  return status;
}

function text(value: unknown, field: string, limit: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidArgument(`${field} must be a string`);
  return value.trim().slice(0, limit) || undefined;
}
