/**
 * The clouds' executor scripts, which suites moving off Sauce Labs, BrowserStack and LambdaTest already send
 * as Execute Script (`POST /session/{id}/execute/sync`): gridgate answers them and never sends them to the
 * browser, where they would only be a script error. Sauce Labs' `sauce:job-result=…`, `sauce:job-name=…`,
 * `sauce:job-build=…`, `sauce:job-tags=…`, `sauce:context=…`; BrowserStack's
 * `browserstack_executor: {"action": "setSessionStatus" | "setSessionName" | "annotate", "arguments": {…}}`;
 * LambdaTest's `lambda-status=…`, `lambda-name=…`, `lambda-build=…`.
 */
import { isObject } from './capabilities';
import { invalidArgument, WebDriverError } from './errors';
import { labelsProblem, REASON_LIMIT, TEXT_LIMIT, type TestMarks, type TestStatus } from './test-marks';

/** Execute Script's path after /session/{id}: the one command whose body is read for these. */
export const EXECUTE_SYNC = '/execute/sync';

/** The largest Execute Script body read to look for one; a longer body is a real script and streams unread. */
export const MAX_EXECUTOR_BODY = 64 * 1024;

const SAUCE = 'sauce:';
const BROWSERSTACK = 'browserstack_executor:';
// Only LambdaTest's own hooks: `lambda-x=y` alone could be a page's own (odd) script.
const LAMBDA_HOOK = /^lambda-(status|name|build)=/;

/** Whether the script is one of these, by its first characters: what decides that the body is parsed. */
export function isExecutorScript(script: string): boolean {
  return script.startsWith(SAUCE) || script.startsWith(BROWSERSTACK) || LAMBDA_HOOK.test(script);
}

/**
 * What an executor script tells of the test, or `invalid argument` (400) for a value the cloud would refuse,
 * `unsupported operation` for a command of theirs gridgate has no counterpart for.
 */
export function executorMarks(script: string): TestMarks {
  if (script.startsWith(SAUCE)) return sauceMarks(script.slice(SAUCE.length));
  if (script.startsWith(BROWSERSTACK)) return browserStackMarks(script.slice(BROWSERSTACK.length));
  return lambdaMarks(script);
}

function sauceMarks(command: string): TestMarks {
  const [name, value] = split(command);
  switch (name) {
    case 'job-result':
      return { result: { status: status(value, SAUCE_RESULTS, 'sauce:job-result') } };
    case 'job-name':
      return { name: text(value, 'sauce:job-name') };
    case 'job-build':
      return { build: text(value, 'sauce:job-build') };
    case 'job-tags':
      return { labels: tagLabels(value) };
    case 'context':
      return {}; // a line in the cloud's command log; nothing kept here
    default:
      throw unsupported(`sauce:${name}`);
  }
}

function browserStackMarks(json: string): TestMarks {
  let command: unknown;
  try {
    command = JSON.parse(json);
  } catch {
    throw invalidArgument('browserstack_executor: must be followed by a JSON object');
  }
  if (!isObject(command)) throw invalidArgument('browserstack_executor: must be followed by a JSON object');
  const args = command.arguments === undefined ? {} : command.arguments;
  if (!isObject(args)) throw invalidArgument('browserstack_executor: arguments must be a JSON object');
  switch (command.action) {
    case 'setSessionStatus': {
      const given = status(args.status, BROWSERSTACK_RESULTS, 'setSessionStatus status');
      const reason = optionalText(args.reason, 'setSessionStatus reason', REASON_LIMIT);
      return { result: { status: given, ...(reason ? { reason } : {}) } };
    }
    case 'setSessionName':
      return { name: text(args.name, 'setSessionName name') };
    case 'annotate':
      return {}; // a line in the cloud's text log; nothing kept here
    default:
      throw unsupported(`browserstack_executor action ${JSON.stringify(command.action)}`);
  }
}

function lambdaMarks(script: string): TestMarks {
  const [hook, value] = split(script);
  switch (hook) {
    case 'lambda-status': {
      // LambdaTest's skipped, ignored and unknown say nothing of a failure: no result is kept.
      if (['skipped', 'ignored', 'unknown'].includes(value)) return {};
      return { result: { status: status(value, LAMBDA_RESULTS, 'lambda-status') } };
    }
    case 'lambda-name':
      return { name: text(value, 'lambda-name') };
    default:
      return { build: text(value, 'lambda-build') };
  }
}

const SAUCE_RESULTS: Record<string, TestStatus> = {
  passed: 'passed',
  true: 'passed',
  failed: 'failed',
  false: 'failed',
};
const BROWSERSTACK_RESULTS: Record<string, TestStatus> = { passed: 'passed', failed: 'failed' };
const LAMBDA_RESULTS: Record<string, TestStatus> = { passed: 'passed', failed: 'failed', error: 'failed' };

/** `name=value` as the clouds read it: the value is everything after the first `=`. */
function split(command: string): [string, string] {
  const at = command.indexOf('=');
  return at === -1 ? [command.trim(), ''] : [command.slice(0, at).trim(), command.slice(at + 1).trim()];
}

function status(value: unknown, allowed: Record<string, TestStatus>, what: string): TestStatus {
  const given = typeof value === 'string' ? allowed[value.trim().toLowerCase()] : undefined;
  if (!given) {
    throw invalidArgument(
      `${what} must be one of ${Object.keys(allowed).join(', ')}, not ${JSON.stringify(value)}`,
    );
  }
  return given;
}

function text(value: unknown, what: string): string {
  const given = optionalText(value, what, TEXT_LIMIT);
  if (!given) throw invalidArgument(`${what} needs a non-empty value`);
  return given;
}

function optionalText(value: unknown, what: string, limit: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidArgument(`${what} must be a string`);
  return value.trim().slice(0, limit) || undefined;
}

/** Sauce's tags as labels of their own name with no value. */
function tagLabels(value: string): Record<string, string> {
  const tags = value
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  if (tags.length === 0) throw invalidArgument('sauce:job-tags needs a comma-separated list of tags');
  const labels = Object.fromEntries(tags.map((tag) => [tag, '']));
  const problem = labelsProblem(labels);
  if (problem) throw invalidArgument(`sauce:job-tags ${problem}`);
  return labels;
}

function unsupported(what: string): WebDriverError {
  return new WebDriverError('unsupported operation', `gridgate does not serve the executor command ${what}`);
}
