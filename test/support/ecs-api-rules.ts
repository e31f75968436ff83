/**
 * What the ECS API refuses of the calls gridgate makes, in one place for every fake of ECS (the wire-level
 * FakeEcsApi, the aws-sdk-client-mock model, hand-made mocks): a fake that accepts what ECS refuses hides
 * the bug until the first real deployment. Each rule cites the page of the Amazon ECS API Reference
 * (docs.aws.amazon.com/AmazonECS/latest/APIReference/API_<Action>.html) that states it. ECS answers a
 * broken request with HTTP 400 and the error type InvalidParameterException (or ClientException); the
 * messages here are ours, the types are ECS's.
 */

import { ECSServiceException } from '@aws-sdk/client-ecs';
import { RECORDER_CONTAINER } from '../../functions/pools/selenium-node/recorder-environment';

// biome-ignore lint/suspicious/noExplicitAny: request bodies are free-form JSON, checked field by field.
type Json = any;

/** A request ECS refuses: `type` is the awsJson error type (x-amzn-ErrorType) it answers with. */
export class EcsRefusal extends Error {
  constructor(
    readonly type: 'InvalidParameterException' | 'ClientException',
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

/**
 * For aws-sdk-client-mock fakes: runs the check and returns ECS's refusal as the SDK raises it (a rejected
 * ECSServiceException, HTTP 400), or undefined when the call passes.
 */
export function refusedAsSdk(check: () => void): Promise<never> | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof EcsRefusal)) throw error;
    const { type, message } = error;
    return Promise.reject(
      new ECSServiceException({ name: type, $fault: 'client', $metadata: { httpStatusCode: 400 }, message }),
    );
  }
}

/**
 * Every ECS call an aws-sdk-client-mock mock received, checked against the rules: for tests that answer
 * with canned replies, so the inputs the code sent are still ones ECS would take. Throws ECS's refusal.
 */
export function refuseAnyEcsCall(
  calls: { args: readonly [{ input: object; constructor: { name: string } }, ...unknown[]] }[],
  containerName = 'browser',
): void {
  // The task definitions infra/browser-fleet.ts registers: the browser (named as the first override names it,
  // the pool's containerName) and, for a pool with a recorder, docker-selenium's recorder beside it.
  for (const call of calls) {
    const [command] = call.args;
    const input = command.input as Json;
    const check: Record<string, () => void> = {
      ListTasksCommand: () => refuseListTasks(input),
      DescribeTasksCommand: () => refuseDescribeTasks(input),
      RunTaskCommand: () =>
        refuseRunTask(input, [
          input.overrides?.containerOverrides?.[0]?.name ?? containerName,
          RECORDER_CONTAINER,
        ]),
      StopTaskCommand: () => refuseStopTask(input),
      TagResourceCommand: () => refuseTagResource(input),
    };
    const rule = check[command.constructor.name];
    if (!rule) throw new Error(`no ECS rules for ${command.constructor.name}: add them before calling it`);
    rule();
  }
}

const invalid = (message: string) => new EcsRefusal('InvalidParameterException', message);

/** Throws what ECS would answer to this ListTasks, if it refuses it. */
export function refuseListTasks(input: Json): void {
  // API_ListTasks, startedBy: "When you specify startedBy as the filter, it must be the only filter that
  // you use." (cluster scopes the call and maxResults/nextToken page it: neither is a filter.)
  const filters = ['containerInstance', 'family', 'serviceName', 'desiredStatus', 'launchType'];
  const others = filters.filter((name) => input[name] !== undefined);
  if (input.startedBy !== undefined && others.length > 0) {
    throw invalid(`startedBy must be the only filter of ListTasks; also given: ${others.join(', ')}.`);
  }
  // API_ListTasks, maxResults: "This value can be between 1 and 100."
  if (input.maxResults !== undefined && (input.maxResults < 1 || input.maxResults > 100)) {
    throw invalid('maxResults must be between 1 and 100.');
  }
  // API_ListTasks, desiredStatus: Valid Values: RUNNING | PENDING | STOPPED.
  if (input.desiredStatus !== undefined && !['RUNNING', 'PENDING', 'STOPPED'].includes(input.desiredStatus)) {
    throw invalid(`desiredStatus ${input.desiredStatus} is not one of RUNNING, PENDING, STOPPED.`);
  }
}

/** Throws what ECS would answer to this DescribeTasks, if it refuses it. */
export function refuseDescribeTasks(input: Json): void {
  const tasks = input.tasks ?? [];
  // API_DescribeTasks, tasks: "A list of up to 100 task IDs or full ARN entries." Required.
  if (tasks.length === 0 || tasks.length > 100) {
    throw invalid('Tasks cannot be empty and can have at most 100 entries.');
  }
  // API_DescribeTasks, include: Valid Values: TAGS.
  for (const field of input.include ?? []) {
    if (field !== 'TAGS') throw invalid(`include ${field} is not one of TAGS.`);
  }
}

/** Throws what ECS would answer to this RunTask, if it refuses it; `containers`: its task definition's. */
export function refuseRunTask(input: Json, containers: readonly string[]): void {
  // API_RunTask, taskDefinition: Required: Yes.
  if (!input.taskDefinition) throw invalid('TaskDefinition can not be blank.');
  // API_RunTask, capacityProviderStrategy: "If a capacityProviderStrategy is specified, the launchType
  // parameter must be omitted." and "A capacity provider strategy can contain a maximum of 20 capacity
  // providers."
  if (input.launchType !== undefined && input.capacityProviderStrategy !== undefined) {
    throw invalid('Specifying both a launch type and capacity provider strategy is not supported.');
  }
  const strategy: Json[] = input.capacityProviderStrategy ?? [];
  if (strategy.length > 20) throw invalid('A capacity provider strategy can contain at most 20 providers.');
  // API_CapacityProviderStrategyItem: "Only one capacity provider in a capacity provider strategy can have
  // a base defined"; base 0–100000, weight 0–1000.
  if (strategy.filter((item) => item.base !== undefined).length > 1) {
    throw invalid('Only one capacity provider in a strategy can have a base.');
  }
  for (const { base = 0, weight = 0 } of strategy) {
    if (base < 0 || base > 100000 || weight < 0 || weight > 1000) {
      throw invalid('A capacity provider base must be 0-100000 and its weight 0-1000.');
    }
  }
  // API_RunTask, networkConfiguration: "This parameter is required for task definitions that use the
  // awsvpc network mode" (Fargate tasks always do).
  if (!input.networkConfiguration?.awsvpcConfiguration?.subnets?.length) {
    throw invalid("Network Configuration must be provided when networkMode 'awsvpc' is specified.");
  }
  // API_AwsVpcConfiguration: subnets "must be 16 or fewer", securityGroups "must be 5 or fewer".
  const vpc = input.networkConfiguration.awsvpcConfiguration;
  if (vpc.subnets.length > 16) throw invalid('At most 16 subnets can be specified.');
  if ((vpc.securityGroups ?? []).length > 5) throw invalid('At most 5 security groups can be specified.');
  // API_RunTask, count: "You can specify up to 10 tasks for each call." Valid range 1–10.
  if (input.count !== undefined && (input.count < 1 || input.count > 10)) {
    throw invalid('count must be between 1 and 10.');
  }
  // API_RunTask, clientToken: "Up to 64 characters are allowed. The valid characters are characters in
  // the range of 33-126, inclusive."
  if (input.clientToken !== undefined && !/^[\x21-\x7e]{1,64}$/.test(input.clientToken)) {
    throw invalid('clientToken must be 1 to 64 characters from 33 to 126.');
  }
  // API_RunTask, startedBy: "Up to 128 letters (uppercase and lowercase), numbers, hyphens (-), forward
  // slash (/), and underscores (_) are allowed."
  if (input.startedBy !== undefined && !/^[A-Za-z0-9_/-]{1,128}$/.test(input.startedBy)) {
    throw invalid('startedBy may have up to 128 letters, numbers, hyphens, slashes and underscores.');
  }
  // API_RunTask, group: "The name of the task group ... Up to 255 characters" (Type: String).
  if (input.group !== undefined && String(input.group).length > 255) {
    throw invalid('group must be at most 255 characters.');
  }
  refuseTags(input.tags ?? []);
  // API_RunTask, overrides: "A total of 8192 characters are allowed for overrides. This limit includes
  // the JSON formatting characters of the override structure."
  if (input.overrides !== undefined && JSON.stringify(input.overrides).length > 8192) {
    throw invalid('Overrides can have at most 8192 characters.');
  }
  for (const override of input.overrides?.containerOverrides ?? []) {
    // API_ContainerOverride: "If a non-empty container override is specified, the name parameter must be
    // included."
    if (override.name === undefined && Object.keys(override).length > 0) {
      throw invalid('A container override must name its container.');
    }
    // API_ContainerOverride, name: "The name of the container that receives the override." It must be a
    // container of the task definition.
    if (!containers.includes(override.name)) {
      throw invalid(
        `Override for container named ${override.name} is not a container in the TaskDefinition.`,
      );
    }
    // API_ContainerOverride, environment: "Type: Array of KeyValuePair objects"; API_KeyValuePair: name and
    // value are strings (a number is a serialization error before any check).
    for (const variable of override.environment ?? []) {
      if (typeof variable?.name !== 'string' || typeof variable?.value !== 'string') {
        throw invalid(`Environment variables of ${override.name} must be name and value strings.`);
      }
    }
  }
}

/** Throws what ECS would answer to this StopTask, if it refuses it. */
export function refuseStopTask(input: Json): void {
  // API_StopTask, task: Required: Yes. reason: "Up to 255 characters are allowed in this message."
  if (!input.task) throw invalid('Task can not be blank.');
  if (input.reason !== undefined && String(input.reason).length > 255) {
    throw invalid('reason must be at most 255 characters.');
  }
}

/** Throws what ECS would answer to this TagResource, if it refuses it. */
export function refuseTagResource(input: Json): void {
  // API_TagResource: resourceArn and tags are required.
  if (!input.resourceArn) throw invalid('resourceArn can not be blank.');
  if (!input.tags?.length) throw invalid('Tags can not be empty.');
  refuseTags(input.tags);
}

/** API_Tag, key and value: "Pattern: ^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$". */
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/**
 * API_Tag and the tag restrictions on API_RunTask/API_TagResource: "Maximum number of tags per resource -
 * 50", "each tag key must be unique", "Maximum key length - 128 Unicode characters in UTF-8", "Maximum
 * value length - 256 Unicode characters in UTF-8", and "Do not use aws:, AWS:, or any upper or lowercase
 * combination of such as a prefix for either keys or values as it is reserved for Amazon Web Services
 * use."
 */
export function refuseTags(tags: Json[]): void {
  if (tags.length > 50) throw invalid('Tags can not have more than 50 entries.');
  const keys = new Set<string>();
  for (const { key, value } of tags) {
    if (typeof key !== 'string' || key.length < 1 || [...key].length > 128 || !TAG_TEXT.test(key)) {
      throw invalid(`Tag key ${JSON.stringify(key)} must have 1 to 128 letters, digits, spaces or _.:/=+-@.`);
    }
    if (value !== undefined && ([...String(value)].length > 256 || !TAG_TEXT.test(String(value)))) {
      throw invalid(`The value of tag ${key} must have at most 256 letters, digits, spaces or _.:/=+-@.`);
    }
    if (/^aws:/i.test(key) || /^aws:/i.test(String(value ?? ''))) {
      throw invalid(`Tag ${key} uses the reserved prefix aws:.`);
    }
    if (keys.has(key)) throw invalid(`Tag key ${key} is given twice.`);
    keys.add(key);
  }
}
