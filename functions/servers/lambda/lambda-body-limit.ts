/**
 * The largest request body a grid served by Lambda can take. A synchronous invocation's payload, the
 * whole event, is at most 6 MB (Lambda developer guide, "Lambda quotas": "Invocation payload (request and
 * response) 6 MB each for synchronous"), and the event holds the body base64-encoded whenever API Gateway
 * or the function URL treats it as binary, beside the headers (twice in payload 1.0) and the request
 * context. A bigger request never reaches the function: the front door answers it with its own error.
 * So bodies are capped at what fits even base64-encoded, whatever `limits.maxBodySize` says, and one
 * over the cap gets a W3C answer that says why and what to do instead.
 */
import { invalidArgument, type WebDriverError } from '../../core/errors';

/** Lambda's limit on a synchronous invocation's payload: 6 MB (6 × 2^20 bytes). */
export const LAMBDA_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * Room kept for the event around the body: API Gateway REST allows 10,240 bytes of request line and
 * headers, which payload 1.0 carries twice (headers and multiValueHeaders), plus the request context.
 */
const EVENT_ENVELOPE_BYTES = 64 * 1024;

/** The largest body whose base64 form still fits beside the envelope: 4,669,440 bytes (about 4.45 MiB). */
export const LAMBDA_MAX_BODY_BYTES = Math.floor((LAMBDA_INVOKE_PAYLOAD_BYTES - EVENT_ENVELOPE_BYTES) / 4) * 3;

/** 413 `invalid argument`, naming the limit, the reason and the way around it. */
export function lambdaBodyTooLarge(size: number): WebDriverError {
  return invalidArgument(
    `request body of ${size} bytes is larger than a grid on AWS Lambda accepts (${LAMBDA_MAX_BODY_BYTES} bytes: ` +
      "Lambda's 6 MB invocation payload holds the whole request, base64-encoded); send larger bodies " +
      'through a gridgate Node server head (npm start with the same config), which takes up to limits.maxBodySize',
    { status: 413 },
  );
}
