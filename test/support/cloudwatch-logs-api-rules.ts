/**
 * What CloudWatch Logs refuses of the GetLogEvents calls gridgate makes, in one place for every fake of it:
 * a fake that accepts what the service refuses hides the bug until the first real deployment. Each rule
 * cites the Amazon CloudWatch Logs API Reference (docs.aws.amazon.com/AmazonCloudWatchLogs/latest/
 * APIReference/API_GetLogEvents.html, and CommonErrors.html for throttling). The service answers a broken
 * request with HTTP 400 and the error type named here; the messages are ours, the types are the service's.
 */

// biome-ignore lint/suspicious/noExplicitAny: request bodies are free-form JSON, checked field by field.
type Json = any;

export type LogsErrorType =
  | 'InvalidParameterException'
  | 'ResourceNotFoundException'
  | 'ThrottlingException'
  | 'ServiceUnavailableException';

/** A request CloudWatch Logs refuses: `type` is the awsJson error type (x-amzn-ErrorType) it answers with. */
export class LogsRefusal extends Error {
  constructor(
    readonly type: LogsErrorType,
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

const invalid = (message: string) => new LogsRefusal('InvalidParameterException', message);

/**
 * GetLogEvents calls a second the service takes before it throttles (ThrottlingException), per account and
 * Region, shared by every reader: "10 requests per second per account per Region. This quota can't be
 * changed." (CloudWatch Logs quotas, docs.aws.amazon.com/AmazonCloudWatch/latest/logs/
 * cloudwatch_limits_cwl.html).
 * The AWS knowledge-center article "cloudwatch-logs-throttling" adds that GetLogEvents has a hard limit, is
 * meant for people, not automation, and that callers should back off.
 */
export const GET_LOG_EVENTS_PER_SECOND = 10;

/** The most events one GetLogEvents answers (API_GetLogEvents, limit: "up to 10,000 log events"). */
export const MAX_EVENTS_PER_PAGE = 10_000;
/** The most bytes of events one GetLogEvents answers (API_GetLogEvents: "a response size of 1 MB"). */
export const MAX_PAGE_BYTES = 1_048_576;
/**
 * What an event counts against a page's 1 MB: its message's UTF-8 bytes plus 26 (the service's own
 * accounting of an event, API_PutLogEvents: "the sum of all event messages in UTF-8, plus 26 bytes for
 * each log event").
 */
export function eventBytes(message: string): number {
  return Buffer.byteLength(message, 'utf8') + 26;
}

/** Throws what CloudWatch Logs would answer to this GetLogEvents for the shape of its input, if it refuses it. */
export function refuseGetLogEvents(input: Json): void {
  // API_GetLogEvents, logGroupName / logGroupIdentifier: "You must include either logGroupIdentifier or
  // logGroupName, but not both."
  if ((input.logGroupName === undefined) === (input.logGroupIdentifier === undefined)) {
    throw invalid('Exactly one of logGroupName and logGroupIdentifier must be given.');
  }
  // API_GetLogEvents, logGroupName: Length Constraints: Minimum length of 1. Maximum length of 512.
  // Pattern: [\.\-_/#A-Za-z0-9]+
  if (input.logGroupName !== undefined && !/^[.\-_/#A-Za-z0-9]{1,512}$/.test(input.logGroupName)) {
    throw invalid(`logGroupName ${JSON.stringify(input.logGroupName)} is not a log group name.`);
  }
  // API_GetLogEvents, logStreamName: Required: Yes. Length Constraints: Minimum length of 1. Maximum length
  // of 512. Pattern: [^:*]*
  if (typeof input.logStreamName !== 'string' || !/^[^:*]{1,512}$/.test(input.logStreamName)) {
    throw invalid(`logStreamName ${JSON.stringify(input.logStreamName)} is not a log stream name.`);
  }
  // API_GetLogEvents, limit: Valid Range: Minimum value of 1. Maximum value of 10000.
  if (
    input.limit !== undefined &&
    !(Number.isInteger(input.limit) && input.limit >= 1 && input.limit <= 10_000)
  ) {
    throw invalid(`limit ${input.limit} is outside 1-10000.`);
  }
  // API_GetLogEvents, nextToken: Length Constraints: Minimum length of 1.
  if (input.nextToken !== undefined && (typeof input.nextToken !== 'string' || input.nextToken.length < 1)) {
    throw invalid('nextToken must not be empty.');
  }
  // API_GetLogEvents, startTime / endTime: Valid Range: Minimum value of 0.
  for (const field of ['startTime', 'endTime'] as const) {
    if (input[field] !== undefined && !(Number.isInteger(input[field]) && input[field] >= 0)) {
      throw invalid(`${field} ${input[field]} is not a time in epoch milliseconds.`);
    }
  }
}

/**
 * Throws what CloudWatch Logs answers to a nextToken: one it did not give for this stream is refused, and
 * a forward token needs startFromHead (API_GetLogEvents, startFromHead: "If you are using a previous
 * nextForwardToken value as the nextToken in this operation, you must specify true for startFromHead.").
 */
export function refuseToken(input: Json, token: { stream: string; forward: boolean } | undefined): void {
  if (input.nextToken === undefined) return;
  if (!token || token.stream !== `${input.logGroupName}:${input.logStreamName}`) {
    throw invalid('The specified nextToken is invalid.');
  }
  if (token.forward && input.startFromHead !== true) {
    throw invalid('A nextForwardToken must be used with startFromHead set to true.');
  }
}

/** API_GetLogEvents, Errors: ResourceNotFoundException, "The specified resource does not exist." (HTTP 400). */
export function notFound(what: 'log group' | 'log stream'): LogsRefusal {
  return new LogsRefusal('ResourceNotFoundException', `The specified ${what} does not exist.`);
}

/** CommonErrors, ThrottlingException: "The request was denied due to request throttling." (HTTP 400). */
export function throttled(): LogsRefusal {
  return new LogsRefusal('ThrottlingException', 'Rate exceeded');
}
