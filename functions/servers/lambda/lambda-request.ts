/**
 * Turns the HTTP events a Lambda receives into a web Request: API Gateway REST proxy events (payload
 * 1.0) and function URL events (payload 2.0). Modelled on hono/aws-lambda's EventV1Processor and
 * EventV2Processor, with their pitfalls avoided (see each function).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';

export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

export function isFunctionUrlEvent(event: LambdaHttpEvent): event is APIGatewayProxyEventV2 {
  return 'rawPath' in event && 'http' in (event.requestContext ?? {});
}

/**
 * The Request the app serves; `signal` aborts when the client goes away. Throws TypeError for an
 * event no Request can be made of (a header value with a line break, a host that is no host).
 */
export function toRequest(event: LambdaHttpEvent, signal: AbortSignal): Request {
  const v2 = isFunctionUrlEvent(event);
  const headers = v2 ? headersV2(event) : headersV1(event);
  const method = v2 ? event.requestContext.http.method : event.httpMethod;
  const path = v2 ? stripStage(event.rawPath, event.requestContext.stage) : pathV1(event);
  const query = v2 ? event.rawQueryString : queryV1(event);
  const host = event.requestContext.domainName ?? headers.get('host') ?? 'localhost';
  // API Gateway and function URLs are HTTPS only; X-Forwarded-Proto can only say "http" otherwise.
  const scheme = headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'http' ? 'http' : 'https';
  const url = `${scheme}://${host}${path.startsWith('/') ? path : `/${path}`}${query ? `?${query}` : ''}`;
  const body = requestBody(event, method);
  // The event holds the whole body, so its length is known; the client's framing no longer applies.
  headers.delete('transfer-encoding');
  if (body) headers.set('content-length', String(body.byteLength));
  else headers.delete('content-length');
  return new Request(url, { method, headers, body, signal });
}

/**
 * GET and HEAD carry no body in a web Request (the constructor throws), and WebDriver defines none for
 * them; any other method keeps its body, base64-decoded when API Gateway encoded it (binary media
 * types, or a function URL's non-text content).
 */
function requestBody(event: LambdaHttpEvent, method: string): Buffer<ArrayBuffer> | null {
  if (event.body === null || event.body === undefined || method === 'GET' || method === 'HEAD') return null;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * Payload 1.0 has both `headers` (last value) and `multiValueHeaders` (every value); the latter wins
 * so repeated headers are not lost.
 */
function headersV1(event: APIGatewayProxyEvent): Headers {
  const headers = new Headers();
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    for (const value of values ?? []) headers.append(name, headerValue(value));
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !headers.has(name)) headers.set(name, headerValue(value));
  }
  return headers;
}

/** Payload 2.0 joins repeated headers with commas already and moves cookies to their own list. */
function headersV2(event: APIGatewayProxyEventV2): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, headerValue(value));
  }
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  return headers;
}

/**
 * Headers hold bytes (Latin-1); the event holds text. A value with characters past U+00FF would make
 * Headers throw, so its UTF-8 bytes go in one per character, as Node's HTTP parser hands them over.
 * (Hono percent-encodes such values instead, which changes what the browser receives.)
 */
function headerValue(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the Latin-1 range is the point
  return /^[\u0000-\u00ff]*$/.test(value) ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * The path below the API, whatever the front door put before it. `path` carries a custom domain's
 * base-path mapping and, on some setups, the stage; the proxy resource and its parameters do not.
 */
function pathV1(event: APIGatewayProxyEvent): string {
  const fromResource = resourcePath(event.resource, event.pathParameters);
  return fromResource ?? stripStage(event.path, event.requestContext?.stage);
}

/** "/{proxy+}" with proxy "session/abc/url" → "/session/abc/url"; undefined when a parameter is missing. */
function resourcePath(
  resource: string | undefined,
  parameters: APIGatewayProxyEvent['pathParameters'],
): string | undefined {
  if (!resource) return undefined;
  let missing = false;
  const path = resource.replace(/\{([^}+]+)(\+?)\}/g, (_, name: string, greedy: string) => {
    const value = parameters?.[name];
    if (value === undefined) {
      missing = true;
      return '';
    }
    // API Gateway decodes parameters; put back what cannot stand in a path as it is.
    const segments = greedy ? value.split('/') : [value];
    return segments.map((segment) => segment.replace(/[%?#\s]/g, encodeURIComponent)).join('/');
  });
  return missing ? undefined : path;
}

/** Drops a leading "/{stage}" (an HTTP API's named stage, a REST path seen with its stage). */
function stripStage(path: string, stage: string | undefined): string {
  if (!stage || stage === '$default') return path;
  const prefix = `/${stage}`;
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

/**
 * Payload 1.0 gives decoded query parameters; multiValue keeps repeats. Encoded again with
 * URLSearchParams. (Payload 2.0's rawQueryString is used as the client sent it.)
 */
function queryV1(event: APIGatewayProxyEvent): string {
  const query = new URLSearchParams();
  if (event.multiValueQueryStringParameters) {
    for (const [name, values] of Object.entries(event.multiValueQueryStringParameters)) {
      for (const value of values ?? []) query.append(name, value);
    }
  } else {
    for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
      if (value !== undefined) query.append(name, value);
    }
  }
  return query.toString();
}
