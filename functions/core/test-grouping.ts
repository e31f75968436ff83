/**
 * A new session's name, build, project and labels, from the capabilities each client already sends:
 * gridgate's own `gridgate:options` {name, build, project, labels}, Selenium's `se:name`, Selenoid's and
 * Moon's `labels`, and the clouds' spellings (`sauce:options` {name, build, tags}, `bstack:options`
 * {sessionName, buildName, projectName}, `LT:Options` {name, build, project, tags}), so a suite moving off
 * one changes nothing. The first spelling given wins, in that order; a value of the wrong type is
 * `invalid argument` before anything starts.
 */
import { type Capabilities, isObject } from './capabilities';
import { invalidArgument } from './errors';
import { GRIDGATE_OPTIONS } from './session-limits';
import { LABELS_MAX, labelsProblem, TEXT_LIMIT, type TestMarks } from './test-marks';

interface Spelling {
  capability: string;
  name?: string;
  build?: string;
  project?: string;
  labels?: string;
  /** A list of tags, kept as labels of their own name with no value. */
  tags?: string;
}

const SPELLINGS: readonly Spelling[] = [
  { capability: GRIDGATE_OPTIONS, name: 'name', build: 'build', project: 'project', labels: 'labels' },
  { capability: 'selenoid:options', name: 'name', labels: 'labels' },
  { capability: 'moon:options', name: 'name', labels: 'labels' },
  { capability: 'sauce:options', name: 'name', build: 'build', tags: 'tags' },
  { capability: 'bstack:options', name: 'sessionName', build: 'buildName', project: 'projectName' },
  { capability: 'LT:Options', name: 'name', build: 'build', project: 'project', tags: 'tags' },
];

/** The marks the capabilities carry (gridgate:options given apart, as new-session takes it out). */
export function groupingAsked(capabilities: Capabilities, gridgateOptions: unknown): TestMarks {
  const marks: TestMarks = {};
  const seName = capabilities['se:name'];
  if (seName !== undefined) marks.name = text(seName, 'se:name');
  for (const spelling of SPELLINGS) {
    const value =
      spelling.capability === GRIDGATE_OPTIONS ? gridgateOptions : capabilities[spelling.capability];
    if (value === undefined) continue;
    if (!isObject(value)) throw invalidArgument(`${spelling.capability} must be a JSON object`);
    for (const field of ['name', 'build', 'project'] as const) {
      const key = spelling[field];
      if (!key || marks[field] !== undefined || value[key] === undefined) continue;
      marks[field] = text(value[key], `${spelling.capability}.${key}`);
    }
    if (!marks.labels && spelling.labels && value[spelling.labels] !== undefined) {
      marks.labels = labels(value[spelling.labels], `${spelling.capability}.${spelling.labels}`);
    }
    if (!marks.labels && spelling.tags && value[spelling.tags] !== undefined) {
      marks.labels = tagLabels(value[spelling.tags], `${spelling.capability}.${spelling.tags}`);
    }
  }
  return marks;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw invalidArgument(`${where} must be a string`);
  return value.slice(0, TEXT_LIMIT);
}

function labels(value: unknown, where: string): Record<string, string> {
  const problem = labelsProblem(value);
  if (problem) throw invalidArgument(`${where} ${problem}`);
  return { ...(value as Record<string, string>) };
}

function tagLabels(value: unknown, where: string): Record<string, string> {
  if (!Array.isArray(value) || value.some((tag) => typeof tag !== 'string')) {
    throw invalidArgument(`${where} must be a list of strings`);
  }
  if (value.length > LABELS_MAX) throw invalidArgument(`${where} may hold at most ${LABELS_MAX} tags`);
  return labels(Object.fromEntries(value.map((tag: string) => [tag, ''])), where);
}
