/** Turns what the DynamoDB SDK throws into the WebDriverError the HTTP layer sends. */
import { WebDriverError } from '../../core/errors';

// Errors that say "not now" rather than "never": the SDK has already retried them with backoff.
const UNAVAILABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // A single-item write that met a transaction on the same item.
  'TransactionConflictException',
  // The SDK's retry of a TransactWriteItems (same ClientRequestToken) met its first try still running.
  'TransactionInProgressException',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// A transaction's own reasons for giving up that pass with time (TransactWriteItems CancellationReasons).
const UNAVAILABLE_REASONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/** How long a client should wait before trying again after the store was unavailable. */
export const RETRY_AFTER_SECONDS = 5;

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: Array<{ Code?: string }>;
}

/**
 * The store is unavailable (throttled, overloaded, unreachable) → 503 with Retry-After, so clients and
 * load balancers try again; a missing table → 500 naming it (a deployment fault); anything else → 500
 * naming the table and the SDK's error name only (its message can carry account ARNs).
 */
export function storeError(table: string, error: unknown): WebDriverError {
  if (error instanceof WebDriverError) return error;
  const sdk = (error ?? {}) as SdkError;
  const name = sdk.name ?? 'Error';
  if (isUnavailable(sdk)) {
    return new WebDriverError(
      'unknown error',
      `the session store (DynamoDB table ${table}) is unavailable: ${reasonOf(sdk)}; try again`,
      { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  if (name === 'ResourceNotFoundException') {
    return new WebDriverError('unknown error', `the session store's DynamoDB table ${table} does not exist`, {
      cause: error,
    });
  }
  return new WebDriverError('unknown error', `the session store (DynamoDB table ${table}) failed: ${name}`, {
    cause: error,
  });
}

function isUnavailable(error: SdkError): boolean {
  if (error.name && UNAVAILABLE_NAMES.has(error.name)) return true;
  if (error.code && NETWORK_CODES.has(error.code)) return true;
  if (error.name === 'TransactionCanceledException')
    return (error.CancellationReasons ?? []).some((reason) => UNAVAILABLE_REASONS.has(reason.Code ?? ''));
  const status = error.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}

function reasonOf(error: SdkError): string {
  if (error.code && NETWORK_CODES.has(error.code)) return `${error.code} (network)`;
  if (error.name === 'TransactionCanceledException') {
    const codes = (error.CancellationReasons ?? [])
      .map((reason) => reason.Code)
      .filter((code) => code !== 'None');
    return `${error.name} (${codes.join(', ')})`;
  }
  return error.name ?? 'Error';
}
