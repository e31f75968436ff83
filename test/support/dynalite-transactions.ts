/**
 * TransactWriteItems for a dynalite server, which implements only single-item operations.
 *
 * DynamoDB's rules, as the API reference states them: every condition is checked before anything is
 * written; if any fails, nothing is written and the answer is a TransactionCanceledException whose
 * CancellationReasons list, in request order, `ConditionalCheckFailed` (with the item when
 * ReturnValuesOnConditionCheckFailure is ALL_OLD) or `None`; one transaction may not touch an item twice.
 * The conditions are parsed and judged by dynalite's own code and the writes are dynalite's own
 * PutItem/UpdateItem/DeleteItem, so expressions behave exactly as they do in single-item calls.
 * Isolation comes from serving one request at a time: every interleaving this allows is one DynamoDB
 * allows too. It never answers TransactionConflict, which the adapter's unit tests cover instead.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';

type AttributeMap = Record<string, unknown>;
type Params = Record<string, unknown> & { TableName?: string; Key?: AttributeMap; Item?: AttributeMap };

interface ActionValidation {
  types: unknown;
  custom?: (data: unknown, store: unknown) => string | undefined;
}

const require = createRequire(import.meta.url);
const validations = require('dynalite/validations') as {
  checkTypes(data: unknown, types: unknown): Params;
  checkValidations(data: unknown, types: unknown, custom: unknown, store: unknown): void;
};
// What PutItem's validation reads of dynalite's store: DynamoDB's 400 KB item limit.
const STORE_LIMITS = { options: { maxItemSize: 400 * 1024 } };
const db = require('dynalite/db') as { checkConditional(data: Params, item?: AttributeMap): Error | null };

// Each kind of transaction step is validated as the single-item call it matches; a ConditionCheck has
// the shape of a DeleteItem (a key and a condition).
const STEPS: Record<string, { operation: string; validation: ActionValidation }> = {
  Put: { operation: 'PutItem', validation: require('dynalite/validations/putItem') },
  Update: { operation: 'UpdateItem', validation: require('dynalite/validations/updateItem') },
  Delete: { operation: 'DeleteItem', validation: require('dynalite/validations/deleteItem') },
  ConditionCheck: { operation: '', validation: require('dynalite/validations/deleteItem') },
};

const TARGET = 'DynamoDB_20120810.TransactWriteItems';
// Marks the single-item calls a transaction makes to its own server, which must not wait behind it.
const STEP_HEADER = 'x-transaction-step';

interface Answer {
  status: number;
  body: unknown;
}

class Refusal extends Error {
  constructor(readonly answer: Answer) {
    super(JSON.stringify(answer.body));
  }
}

const validationError = (message: string): Refusal =>
  new Refusal({ status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } });

/** The JSON size of the Put items and Update keys of a transaction: what counts toward its 4 MB. */
function itemBytes(items: unknown[]): number {
  return items.reduce<number>((sum, item) => {
    const step = item as { Put?: { Item?: unknown }; Update?: { Key?: unknown } };
    return sum + JSON.stringify(step.Put?.Item ?? step.Update?.Key ?? {}).length;
  }, 0);
}

/** Makes `server` (a dynalite server, not yet listening) answer TransactWriteItems too. */
export function addTransactions(server: Server): void {
  const [dynalite] = server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  if (!dynalite) throw new Error('addTransactions needs a dynalite server');
  server.removeAllListeners('request');
  const keySchemas = new Map<string, string[]>();
  let queue: Promise<void> = Promise.resolve();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers[STEP_HEADER]) return dynalite(req, res);
    const turn = queue.then(
      () =>
        new Promise<void>((done) => {
          res.once('close', done);
          if (req.headers['x-amz-target'] !== TARGET) return dynalite(req, res);
          transact(req, endpointOf(server), keySchemas).then(
            (answer) => send(res, answer),
            () => res.destroy(),
          );
        }),
    );
    queue = turn.catch(() => {});
  });
}

function endpointOf(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite is not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

async function transact(req: IncomingMessage, endpoint: string, keySchemas: Map<string, string[]>) {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = Buffer.concat(chunks);
    const { TransactItems: items, ClientRequestToken: token } = JSON.parse(request.toString()) as {
      TransactItems?: unknown;
      ClientRequestToken?: unknown;
    };
    // API_TransactWriteItems, TransactItems: "Array Members: Minimum number of 1 item. Maximum number of
    // 100 items."
    if (!Array.isArray(items) || items.length < 1 || items.length > 100)
      throw validationError('TransactItems must hold 1 to 100 items');
    // API_TransactWriteItems: "The aggregate size of the items in the transaction cannot exceed 4 MB."
    // (The request's size bounds the items' from above, so this refuses only what DynamoDB refuses.)
    if (request.length > 4 * 1024 * 1024 && itemBytes(items) > 4 * 1024 * 1024)
      throw validationError('The aggregate size of the items in the transaction cannot exceed 4 MB');
    // API_TransactWriteItems, ClientRequestToken: "Length Constraints: Minimum length of 1. Maximum
    // length of 36."
    if (token !== undefined && (typeof token !== 'string' || token.length < 1 || token.length > 36))
      throw validationError('ClientRequestToken must have 1 to 36 characters');
    const steps = await Promise.all(items.map((item) => prepare(item, endpoint, keySchemas)));
    const seen = new Set(steps.map((step) => step.itemId));
    // API_TransactWriteItems: "You can't target the same item with multiple operations within the same
    // transaction."
    if (seen.size !== steps.length)
      throw validationError('Transaction request cannot include multiple operations on one item');

    const current = await currentItems(steps, endpoint);
    const reasons = steps.map((step) => judge(step, current.get(step.itemId)));
    if (reasons.some((reason) => reason.Code !== 'None')) {
      const codes = reasons.map((reason) => reason.Code).join(', ');
      return {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
          CancellationReasons: reasons,
        },
      };
    }
    // The items differ (checked above) and no other request runs meanwhile, so the writes may go together.
    const writes = steps.filter((step) => step.operation);
    const answers = await Promise.all(
      writes.map(({ operation, params: { ReturnValuesOnConditionCheckFailure: _, ...params } }) =>
        call(endpoint, operation, params),
      ),
    );
    // Conditions were checked in the same exclusive turn, so a write can only fail on a case dynalite
    // validates late (e.g. an ADD to a string): say so loudly rather than pretend atomicity.
    const failed = answers.find((answer) => answer.status !== 200);
    if (failed)
      return { status: 500, body: { __type: 'InternalServerError', message: JSON.stringify(failed.body) } };
    return { status: 200, body: {} };
  } catch (error) {
    if (error instanceof Refusal) return error.answer;
    return { status: 500, body: { __type: 'InternalServerError', message: String(error) } };
  }
}

interface Step {
  operation: string;
  params: Params;
  /** What dynalite's validation made of the params: the parsed condition it judges. */
  parsed: Params;
  table: string;
  key: AttributeMap;
  itemId: string;
}

async function prepare(entry: unknown, endpoint: string, keySchemas: Map<string, string[]>): Promise<Step> {
  const kinds = Object.keys((entry ?? {}) as object);
  const kind = kinds[0];
  const step = kind === undefined ? undefined : STEPS[kind];
  if (kinds.length !== 1 || !step || kind === undefined)
    throw validationError('Each TransactItem holds exactly one of Put, Update, Delete, ConditionCheck');
  const params = (entry as Record<string, Params>)[kind] as Params;
  let parsed: Params;
  try {
    const { ReturnValuesOnConditionCheckFailure: _, ...single } = structuredClone(params);
    parsed = validations.checkTypes(single, step.validation.types);
    validations.checkValidations(parsed, step.validation.types, step.validation.custom, STORE_LIMITS);
  } catch (error) {
    const answer = error as { statusCode?: number; body?: unknown };
    if (answer.statusCode) throw new Refusal({ status: answer.statusCode, body: answer.body });
    throw error;
  }
  const table = String(params.TableName);
  const keyNames = await keySchema(table, endpoint, keySchemas);
  const source = kind === 'Put' ? (params.Item ?? {}) : (params.Key ?? {});
  const key = Object.fromEntries(keyNames.map((name) => [name, source[name]]));
  return { operation: step.operation, params, parsed, table, key, itemId: JSON.stringify([table, key]) };
}

async function keySchema(table: string, endpoint: string, keySchemas: Map<string, string[]>) {
  const known = keySchemas.get(table);
  if (known) return known;
  const answer = await call(endpoint, 'DescribeTable', { TableName: table });
  if (answer.status !== 200) throw new Refusal(answer);
  const { Table } = answer.body as { Table: { KeySchema: Array<{ AttributeName: string }> } };
  const names = Table.KeySchema.map((element) => element.AttributeName);
  keySchemas.set(table, names);
  return names;
}

/** The items the steps name as they are now, by item id, in one strongly consistent read. */
async function currentItems(steps: Step[], endpoint: string): Promise<Map<string, AttributeMap>> {
  const RequestItems: Record<string, { Keys: AttributeMap[]; ConsistentRead: true }> = {};
  for (const { table, key } of steps) {
    const request = RequestItems[table] ?? { Keys: [], ConsistentRead: true };
    request.Keys.push(key);
    RequestItems[table] = request;
  }
  const answer = await call(endpoint, 'BatchGetItem', { RequestItems });
  if (answer.status !== 200) throw new Refusal(answer);
  const { Responses } = answer.body as { Responses: Record<string, AttributeMap[]> };
  const items = new Map<string, AttributeMap>();
  for (const step of steps) {
    for (const item of Responses[step.table] ?? []) {
      const key = Object.fromEntries(Object.keys(step.key).map((name) => [name, item[name]]));
      if (JSON.stringify(key) === JSON.stringify(step.key)) items.set(step.itemId, item);
    }
  }
  return items;
}

function judge(step: Step, item: AttributeMap | undefined) {
  if (db.checkConditional(step.parsed, item) == null) return { Code: 'None' };
  const withItem =
    step.params.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && item ? { Item: item } : {};
  return { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', ...withItem };
}

// dynalite checks that a request carries SigV4's parts, not that the signature is right.
const UNSIGNED = {
  'content-type': 'application/x-amz-json-1.0',
  authorization:
    'AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  'x-amz-date': '20250101T000000Z',
  [STEP_HEADER]: '1',
};

async function call(endpoint: string, operation: string, params: unknown): Promise<Answer> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { ...UNSIGNED, 'x-amz-target': `DynamoDB_20120810.${operation}` },
    body: JSON.stringify(params),
  });
  return { status: response.status, body: await response.json() };
}

function send(res: ServerResponse, { status, body }: Answer): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': 'transaction',
  });
  res.end(text);
}
