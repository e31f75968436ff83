/**
 * What a test tells the grid about itself: its result (passed or failed, and why), its name, its build and
 * project, and free labels. Each way a client says it (Grid 4.41's se/event, the clouds' executor scripts, a
 * REST call after the session, new-session capabilities) is read into a TestMarks, which the store merges
 * into the session's record. No Node import: the status page's browser-side code reads these types too.
 */

export type TestStatus = 'passed' | 'failed';

export interface TestResult {
  status: TestStatus;
  /** Why, in the test's words (an assertion's message), when it gave one. */
  reason?: string;
}

/** What is known of a session's test; each field given replaces the record's, the others stay. */
export interface TestMarks {
  result?: TestResult;
  name?: string;
  build?: string;
  project?: string;
  labels?: Record<string, string>;
}

/** How a session's test went as metrics and filters count it: no result given is `unknown`. */
export type TestOutcome = TestStatus | 'unknown';

export const TEST_OUTCOMES: readonly TestOutcome[] = ['passed', 'failed', 'unknown'];

/** Bounds, so no client grows a record (a DynamoDB item holds at most 400 KB) or the page without limit. */
export const TEXT_LIMIT = 200;
export const REASON_LIMIT = 1000;
export const LABELS_MAX = 20;
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/;

export function outcomeOf(record: { result?: TestResult }): TestOutcome {
  return record.result?.status ?? 'unknown';
}

/** Why a label set is refused, or undefined when it is fine. */
export function labelsProblem(labels: unknown): string | undefined {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    return 'must be a JSON object of names to strings';
  }
  const entries = Object.entries(labels);
  if (entries.length > LABELS_MAX) return `may hold at most ${LABELS_MAX} labels`;
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) {
      return `has a label name ${JSON.stringify(key.slice(0, 80))}: names are 1 to 64 letters, digits, ".", "_", ":", "/" or "-"`;
    }
    if (typeof value !== 'string') return `has label ${key} with a value that is not a string`;
    if (value.length > TEXT_LIMIT) return `has label ${key} longer than ${TEXT_LIMIT} characters`;
  }
  return undefined;
}

/** The record with the marks merged in: a given field replaces the record's; labels merge by name. */
export function withMarks<T extends TestMarks>(record: T, marks: TestMarks): T {
  const merged: T = { ...record };
  if (marks.result) merged.result = { ...marks.result };
  if (marks.name !== undefined) merged.name = marks.name;
  if (marks.build !== undefined) merged.build = marks.build;
  if (marks.project !== undefined) merged.project = marks.project;
  if (marks.labels) {
    // Merged by name; a new name past LABELS_MAX is dropped, so the record stays bounded however often it is marked.
    const labels = { ...record.labels };
    for (const [key, value] of Object.entries(marks.labels)) {
      if (key in labels || Object.keys(labels).length < LABELS_MAX) labels[key] = value;
    }
    merged.labels = labels;
  }
  return merged;
}
