/**
 * What ECS refuses of a Fargate task definition (RegisterTaskDefinition, which CloudFormation's
 * AWS::ECS::TaskDefinition calls), for the shapes the CDK app synthesizes: the fake ECS API's tasks are
 * started from these, so a definition ECS would refuse must fail here first. Each rule cites the Amazon ECS
 * API Reference (API_RegisterTaskDefinition.html, API_ContainerDefinition.html, API_ContainerDependency.html,
 * API_PortMapping.html) or the Developer Guide page that states it. Input: the API's own shape (camelCase),
 * as CloudFormation passes it on; values CloudFormation fills in at deploy time (Ref, Fn::Join) are objects
 * and not judged.
 */
import { EcsRefusal } from './ecs-api-rules';

// biome-ignore lint/suspicious/noExplicitAny: definitions are free-form JSON, checked field by field.
type Json = any;

const invalid = (message: string) => new EcsRefusal('ClientException', message);

// API_RegisterTaskDefinition, cpu and memory: the Fargate combinations (cpu units → memory MiB).
const FARGATE_MEMORY: Record<number, (memory: number) => boolean> = {
  256: (m) => [512, 1024, 2048].includes(m),
  512: (m) => m >= 1024 && m <= 4096 && m % 1024 === 0,
  1024: (m) => m >= 2048 && m <= 8192 && m % 1024 === 0,
  2048: (m) => m >= 4096 && m <= 16384 && m % 1024 === 0,
  4096: (m) => m >= 8192 && m <= 30720 && m % 1024 === 0,
  8192: (m) => m >= 16384 && m <= 61440 && m % 4096 === 0,
  16384: (m) => m >= 32768 && m <= 122880 && m % 8192 === 0,
};

/** Throws what ECS would answer to registering this Fargate task definition, if it refuses it. */
export function refuseFargateTaskDefinition(input: Json): void {
  // API_RegisterTaskDefinition, requiresCompatibilities FARGATE: networkMode must be awsvpc, and task-level
  // cpu and memory are required, in one of the listed combinations.
  if (input.networkMode !== 'awsvpc') throw invalid('Fargate only supports network mode ‘awsvpc’.');
  const cpu = Number(input.cpu);
  const memory = Number(input.memory);
  if (!FARGATE_MEMORY[cpu]?.(memory)) {
    throw invalid(
      `No Fargate configuration exists for given values: ${input.cpu} CPU, ${input.memory} memory.`,
    );
  }
  const containers: Json[] = input.containerDefinitions ?? [];
  // API_RegisterTaskDefinition, containerDefinitions: Required: Yes.
  if (containers.length === 0) throw invalid('Container.name should not be null or empty.');
  // API_ContainerDefinition, essential: "All tasks must have at least one essential container."
  // (essential defaults to true.)
  if (!containers.some((container) => container.essential !== false)) {
    throw invalid('Task definition does not have any essential container.');
  }
  const names = new Set<string>();
  for (const container of containers) refuseContainer(container, names);
  for (const container of containers) refuseDependencies(container, containers);
  // API_PortMapping, containerPort: with awsvpc "exposed ports should be specified using containerPort"
  // and a port can be exposed by one container of the task only (containers share the task's ENI).
  const ports = containers.flatMap((container) =>
    (container.portMappings ?? []).map(
      (mapping: Json) => `${mapping.containerPort}/${mapping.protocol ?? 'tcp'}`,
    ),
  );
  const duplicate = ports.find((port, index) => ports.indexOf(port) !== index);
  if (duplicate) throw invalid(`Port ${duplicate} is mapped by more than one container.`);
}

// API_ContainerDependency, condition: "Valid Values: START | COMPLETE | SUCCESS | HEALTHY".
const CONDITIONS = ['START', 'COMPLETE', 'SUCCESS', 'HEALTHY'];
// API_ContainerDependency, condition: COMPLETE and SUCCESS wait for the other container to exit, and "This
// condition can't be set on an essential container" (an essential container's exit stops the task).
const EXITED_CONDITIONS = ['COMPLETE', 'SUCCESS'];

/** A container's dependsOn (API_ContainerDependency: both members required), against the definition's containers. */
function refuseDependencies(container: Json, containers: Json[]): void {
  for (const dependency of container.dependsOn ?? []) {
    if (!CONDITIONS.includes(dependency.condition)) {
      throw invalid(
        `Container ${container.name}: dependency condition ${dependency.condition} is not valid.`,
      );
    }
    // containerName: a container of the same task definition. The wording is ECS's own, stray "+" and all
    // (as users quote it: eagletmt/hako#99, dagster-io/dagster#6926).
    const other = containers.find((candidate) => candidate.name === dependency.containerName);
    if (!other) {
      throw invalid(`Cannot depend on container + '${dependency.containerName}' because it does not exist`);
    }
    // ECS's answer as users quote it (boto/boto3#2436, compose-x/ecs_composex#302).
    if (EXITED_CONDITIONS.includes(dependency.condition) && other.essential !== false) {
      throw invalid(
        'A dependency container with SUCCESS or COMPLETE condition cannot be an essential container',
      );
    }
  }
}

function refuseContainer(container: Json, names: Set<string>): void {
  // API_ContainerDefinition, name: "Up to 255 letters (uppercase and lowercase), numbers, underscores, and
  // hyphens are allowed." Container names are unique within a task definition.
  if (typeof container.name !== 'string' || !/^[A-Za-z0-9_-]{1,255}$/.test(container.name)) {
    throw invalid(`Container name ${JSON.stringify(container.name)} is not valid.`);
  }
  if (names.has(container.name)) throw invalid(`Duplicate container name ${container.name}.`);
  names.add(container.name);
  // API_ContainerDefinition, image: Required.
  if (!container.image) throw invalid(`Container ${container.name} has no image.`);
  // API_ContainerDefinition, stopTimeout: "For tasks using the Fargate launch type ... The max stop timeout
  // value is 120 seconds".
  if (container.stopTimeout !== undefined && (container.stopTimeout < 2 || container.stopTimeout > 120)) {
    throw invalid(`Container ${container.name}: stopTimeout must be 2-120 seconds on Fargate.`);
  }
  // API_PortMapping, hostPort: with awsvpc "the hostPort can either be kept blank or be the same value as
  // the containerPort".
  for (const mapping of container.portMappings ?? []) {
    if (mapping.hostPort !== undefined && mapping.hostPort !== mapping.containerPort) {
      throw invalid(`Container ${container.name}: hostPort must equal containerPort in awsvpc mode.`);
    }
  }
  // API_KeyValuePair within environment: names are unique per container (a repeated one is refused).
  const variables = (container.environment ?? []).map((pair: Json) => pair.name);
  const repeated = variables.find((name: string, index: number) => variables.indexOf(name) !== index);
  if (repeated) throw invalid(`Container ${container.name}: environment variable ${repeated} is set twice.`);
  // Developer Guide, "Using the awslogs log driver": on Fargate awslogs-group, awslogs-region and
  // awslogs-stream-prefix are required.
  const log = container.logConfiguration;
  if (log?.logDriver === 'awslogs') {
    for (const option of ['awslogs-group', 'awslogs-region', 'awslogs-stream-prefix']) {
      if (log.options?.[option] === undefined) {
        throw invalid(`Container ${container.name}: the awslogs driver needs ${option} on Fargate.`);
      }
    }
  }
}

/** CloudFormation's spelling of a value (PascalCase keys) in the API's (camelCase), keys of maps kept. */
export function apiShape(value: Json): Json {
  if (Array.isArray(value)) return value.map(apiShape);
  if (value === null || typeof value !== 'object') return value;
  // Intrinsics (Ref, Fn::…) and log driver options are passed as they are.
  if (Object.keys(value).some((key) => key === 'Ref' || key.startsWith('Fn::'))) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.charAt(0).toLowerCase() + key.slice(1),
      key === 'Options' ? inner : apiShape(inner),
    ]),
  );
}
