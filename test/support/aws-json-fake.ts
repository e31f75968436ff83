/**
 * What a fake of an awsJson1_1 API (fake-cloudwatch-logs.ts) does on every call: read the body, answer JSON
 * with the protocol's content type, its errors as `{__type, message}` with x-amzn-ErrorType; and close
 * with its connections.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export const AWS_JSON_11 = 'application/x-amz-json-1.1';

export async function requestBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function awsJsonAnswer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': AWS_JSON_11 }).end(JSON.stringify(body));
}

/** The awsJson1_1 error shape: the type in __type and x-amzn-ErrorType, a message beside it. */
export function awsJsonError(res: ServerResponse, status: number, type: string, message: string): void {
  res
    .writeHead(status, { 'content-type': AWS_JSON_11, 'x-amzn-errortype': type })
    .end(JSON.stringify({ __type: type, message }));
}

export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
}
