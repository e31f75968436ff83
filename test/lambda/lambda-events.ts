/**
 * Lambda HTTP events for tests, made from the documented examples in events/: an API Gateway REST
 * proxy event (payload 1.0, resource "/{proxy+}", stage "prod") and a function URL event (payload 2.0).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import functionUrlExample from './events/function-url-v2.json' with { type: 'json' };
import restExample from './events/rest-proxy-v1.json' with { type: 'json' };

export interface HttpCall {
  method: string;
  /** The path as the client sent it, below the API (e.g. "/wd/hub/session"). */
  path: string;
  /** Query parameters, each with every value. */
  query?: Record<string, string[]>;
  body?: string | Buffer;
  /** Send the body base64-encoded, as API Gateway does for binary media types. */
  base64?: boolean;
  headers?: Record<string, string>;
}

const clone = <T>(value: T): T => structuredClone(value);

export interface RestEventOptions {
  /**
   * What stands before the path in `path`: the stage ("/prod", as some setups and requestContext.path
   * show it) or a custom domain's base-path mapping ("/grid").
   */
  pathPrefix?: string;
  /** Leave out resource and pathParameters, so only `path` tells where the request goes. */
  pathOnly?: boolean;
}

export function restEvent(call: HttpCall, options: RestEventOptions = {}): APIGatewayProxyEvent {
  const event = clone(restExample) as unknown as APIGatewayProxyEvent;
  const stage = event.requestContext.stage;
  event.httpMethod = call.method;
  event.requestContext.httpMethod = call.method;
  event.path = `${options.pathPrefix ?? ''}${call.path}`;
  event.requestContext.path = `/${stage}${call.path}`;
  if (options.pathOnly) {
    event.resource = undefined as unknown as string;
    event.pathParameters = null;
  } else if (call.path === '/') {
    event.resource = '/';
    event.requestContext.resourcePath = '/';
    event.pathParameters = null;
  } else {
    event.pathParameters = { proxy: decodeURIComponent(call.path.slice(1)) };
  }
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    event.headers[name] = value;
    event.multiValueHeaders[name] = [value];
  }
  if (call.query) {
    event.multiValueQueryStringParameters = call.query;
    event.queryStringParameters = Object.fromEntries(
      Object.entries(call.query).map(([name, values]) => [name, values.at(-1) as string]),
    );
  }
  Object.assign(event, encodedBody(call));
  return event;
}

export function functionUrlEvent(call: HttpCall): APIGatewayProxyEventV2 {
  const event = clone(functionUrlExample) as unknown as APIGatewayProxyEventV2;
  event.rawPath = call.path;
  event.requestContext.http.method = call.method;
  event.requestContext.http.path = call.path;
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(call.query ?? {})) {
    for (const value of values) query.append(name, value);
  }
  event.rawQueryString = query.toString();
  event.queryStringParameters = call.query
    ? Object.fromEntries(Object.entries(call.query).map(([name, values]) => [name, values.join(',')]))
    : undefined;
  for (const [name, value] of Object.entries(call.headers ?? {})) event.headers[name.toLowerCase()] = value;
  Object.assign(event, encodedBody(call));
  return event;
}

function encodedBody(call: HttpCall): { body: string | undefined; isBase64Encoded: boolean } {
  if (call.body === undefined) return { body: undefined, isBase64Encoded: false };
  if (call.base64) return { body: Buffer.from(call.body).toString('base64'), isBase64Encoded: true };
  return { body: call.body.toString(), isBase64Encoded: false };
}
