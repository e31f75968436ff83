/**
 * Which ECS API errors are worth another try (throttling, no capacity) and which mean a task is already
 * gone; the pacing of those tries is retry-pacing.ts.
 */

interface SdkErrorLike {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
}

const THROTTLING_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
]);

/** ECS answers a request over its token bucket with ThrottlingException (HTTP 400) or a 429. */
export function isThrottling(error: unknown): boolean {
  const sdk = error as SdkErrorLike | undefined;
  return (
    THROTTLING_NAMES.has(sdk?.name ?? '') ||
    sdk?.$retryable?.throttling === true ||
    sdk?.$metadata?.httpStatusCode === 429
  );
}

// "Capacity is unavailable at this time. Please try again later or in a different availability zone"
// (RunTask failures[] reason, or an exception's message), and the "RESOURCE:FARGATE" family of reasons.
const NO_CAPACITY = /capacity is unavailable|insufficient capacity|no capacity|RESOURCE:FARGATE/i;

/** A RunTask failure reason or error that says Fargate (or Fargate Spot) has no capacity right now. */
export function isNoCapacity(reasonOrError: unknown): boolean {
  if (typeof reasonOrError === 'string') return NO_CAPACITY.test(reasonOrError);
  const sdk = reasonOrError as SdkErrorLike | undefined;
  return NO_CAPACITY.test(sdk?.message ?? '');
}

/** A StopTask answer meaning there is nothing (left) to stop: an unknown or already-gone task. */
export function isTaskGone(error: unknown): boolean {
  const sdk = error as SdkErrorLike | undefined;
  return (
    (sdk?.name === 'InvalidParameterException' &&
      /task (was )?not found|referenced task/i.test(sdk.message ?? '')) ||
    sdk?.name === 'ResourceNotFoundException'
  );
}

// The account's Fargate vCPU quota ("Fargate On-Demand vCPU resource count", "Fargate Spot vCPU resource
// count": AWS Fargate service quotas) reached: RunTask answers "You've reached the limit on the number of vCPUs
// you can run concurrently". Spot and on-demand have quotas of their own, so one full is no word on the other.
const VCPU_LIMIT = /reached the limit on the number of vCPUs/i;

/** A RunTask failure reason or error that says the account's Fargate vCPU quota for the provider is used up. */
export function isVcpuQuota(reasonOrError: unknown): boolean {
  if (typeof reasonOrError === 'string') return VCPU_LIMIT.test(reasonOrError);
  return VCPU_LIMIT.test((reasonOrError as SdkErrorLike | undefined)?.message ?? '');
}
