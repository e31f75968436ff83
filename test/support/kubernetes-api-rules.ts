/**
 * What the Kubernetes API server refuses of the Pod gridgate creates (the fake API server checks every
 * create against these): the rules of kubernetes.io/docs/concepts/overview/working-with-objects/ —
 * "Object Names and IDs", "Labels and Selectors", "Annotations" — the Pod API reference, and the pod
 * checks of the API server's validation (kubernetes/kubernetes pkg/apis/core/validation/validation.go:
 * validateContainers, ValidateVolumeMounts, validateEnv, validateHandler, ValidateServiceAccountName). An
 * invalid object is answered 422 with reason Invalid, as the API server does; a field of the wrong JSON
 * type never reaches validation: decoding it fails, 400 BadRequest.
 */

// biome-ignore lint/suspicious/noExplicitAny: a Kubernetes object is free-form JSON, checked field by field.
type Json = any;

// "Object Names and IDs", DNS Subdomain Names: at most 253 characters, lowercase alphanumerics, '-' or '.',
// starting and ending with an alphanumeric.
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// "Object Names and IDs", RFC 1123 Label Names: at most 63 characters, lowercase alphanumerics or '-'.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// "Labels and Selectors", Syntax and character set: a name (and a value) is 63 characters or less,
// "beginning and ending with an alphanumeric character ([a-z0-9A-Z]) with dashes (-), underscores (_),
// dots (.), and alphanumerics between"; a value may also be empty.
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
// Pod API reference, ContainerPort.name: an IANA_SVC_NAME, at most 15 characters.
const PORT_NAME = /^(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// validateEnv: IsEnvVarName, "a valid environment variable name must consist of alphabetic characters,
// digits, '_', '-', or '.', and must not start with a digit" (API servers without the newer relaxed rule).
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * Fields whose JSON type the Pod's Go types fix: an env var's value is a string, a port and the grace period
 * integers. The API server's decoder refuses any other with 400 BadRequest before validating.
 */
export function podTypeProblems(pod: Json): string[] {
  const problems: string[] = [];
  const grace = pod?.spec?.terminationGracePeriodSeconds;
  if (grace !== undefined && !Number.isInteger(grace)) {
    problems.push(`spec.terminationGracePeriodSeconds: cannot unmarshal ${typeof grace} into int64`);
  }
  const deadline = pod?.spec?.activeDeadlineSeconds;
  if (deadline !== undefined && !Number.isInteger(deadline)) {
    problems.push(`spec.activeDeadlineSeconds: cannot unmarshal ${typeof deadline} into int64`);
  }
  for (const [i, container] of (pod?.spec?.containers ?? []).entries()) {
    for (const [j, env] of (container?.env ?? []).entries()) {
      if (env?.value !== undefined && typeof env.value !== 'string') {
        problems.push(
          `spec.containers[${i}].env[${j}].value: cannot unmarshal ${typeof env.value} into string`,
        );
      }
    }
  }
  return problems;
}

/** Why the API server would refuse this Pod, each problem with its field path; empty when it would not. */
export function podProblems(pod: Json): string[] {
  const problems: string[] = [];
  const name = String(pod?.metadata?.name ?? '');
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    problems.push(`metadata.name: Invalid value: "${name}"`);
  problems.push(...keyProblems('metadata.labels', pod?.metadata?.labels, true));
  problems.push(...keyProblems('metadata.annotations', pod?.metadata?.annotations, false));
  // "Annotations", Syntax and character set: "the total size of all annotations ... must not exceed
  // 256 KiB" (keys and values together).
  const annotations = Object.entries(pod?.metadata?.annotations ?? {});
  if (annotations.reduce((sum, [key, value]) => sum + key.length + String(value).length, 0) > 256 * 1024) {
    problems.push('metadata.annotations: Too long: must have at most 262144 bytes');
  }
  const deadline = pod?.spec?.activeDeadlineSeconds;
  // ValidatePodSpec: "activeDeadlineSeconds … must be between 1 and 2147483647, inclusive".
  if (deadline !== undefined && !(deadline >= 1 && deadline <= 2147483647)) {
    problems.push(
      `spec.activeDeadlineSeconds: Invalid value: ${deadline}: must be between 1 and 2147483647, inclusive`,
    );
  }
  const account = pod?.spec?.serviceAccountName;
  // ValidateServiceAccountName: a DNS subdomain.
  if (account !== undefined && (String(account).length > 253 || !DNS_SUBDOMAIN.test(String(account)))) {
    problems.push(`spec.serviceAccountName: Invalid value: "${account}"`);
  }
  const volumes = new Set((pod?.spec?.volumes ?? []).map((volume: Json) => volume?.name));
  const names = new Set<string>();
  for (const [i, container] of (pod?.spec?.containers ?? []).entries()) {
    const path = `spec.containers[${i}]`;
    if (!DNS_LABEL.test(String(container?.name ?? '')) || String(container.name).length > 63) {
      problems.push(`${path}.name: Invalid value: "${container?.name}"`);
    }
    // validateContainers: container names are unique in the pod.
    if (names.has(container?.name)) problems.push(`${path}.name: Duplicate value: "${container.name}"`);
    names.add(container?.name);
    problems.push(...containerProblems(path, container, volumes));
    for (const [j, port] of (container?.ports ?? []).entries()) {
      if (port.name !== undefined && (String(port.name).length > 15 || !PORT_NAME.test(String(port.name)))) {
        problems.push(`${path}.ports[${j}].name: Invalid value: "${port.name}"`);
      }
      if (!(Number.isInteger(port.containerPort) && port.containerPort >= 1 && port.containerPort <= 65535)) {
        problems.push(`${path}.ports[${j}].containerPort: Invalid value: ${port.containerPort}`);
      }
    }
  }
  return problems;
}

/**
 * Label and annotation keys: "an optional prefix and name, separated by a slash (/)"; the prefix a DNS
 * subdomain of at most 253 characters, the name as LABEL_NAME. Label values follow LABEL_NAME or are empty.
 */
function keyProblems(path: string, map: Json, values: boolean): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(map ?? {})) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
    const name = key.slice(slash + 1);
    const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
    if (!prefixOk || name.length > 63 || !LABEL_NAME.test(name)) {
      problems.push(
        `${path}: Invalid value: "${key}": name part must consist of alphanumerics, '-', '_' or '.'`,
      );
    }
    const text = String(value);
    if (values && text !== '' && (text.length > 63 || !LABEL_NAME.test(text))) {
      problems.push(`${path}: Invalid value: "${text}": a label value must be 63 characters or less`);
    }
  }
  return problems;
}

/** A container's env, volume mounts and lifecycle hooks, as the API server validates them. */
function containerProblems(path: string, container: Json, volumes: Set<unknown>): string[] {
  const problems: string[] = [];
  for (const [j, env] of (container?.env ?? []).entries()) {
    if (!ENV_NAME.test(String(env?.name ?? ''))) {
      problems.push(`${path}.env[${j}].name: Invalid value: "${env?.name}"`);
    }
  }
  // ValidateVolumeMounts: each mount names one of the pod's volumes.
  for (const [j, mount] of (container?.volumeMounts ?? []).entries()) {
    if (!volumes.has(mount?.name))
      problems.push(`${path}.volumeMounts[${j}].name: Not found: "${mount?.name}"`);
  }
  // validateLifecycle → validateHandler: exactly one handler type; validateExecAction: a command.
  for (const hook of ['postStart', 'preStop'] as const) {
    const handler = container?.lifecycle?.[hook];
    if (handler === undefined) continue;
    const types = ['exec', 'httpGet', 'tcpSocket', 'sleep'].filter((type) => handler[type] !== undefined);
    if (types.length === 0)
      problems.push(`${path}.lifecycle.${hook}: Required value: must specify a handler type`);
    if (types.length > 1) {
      problems.push(
        `${path}.lifecycle.${hook}.${types[1]}: Forbidden: may not specify more than 1 handler type`,
      );
    }
    if (
      handler.exec !== undefined &&
      !(Array.isArray(handler.exec.command) && handler.exec.command.length > 0)
    ) {
      problems.push(`${path}.lifecycle.${hook}.exec.command: Required value`);
    }
  }
  return problems;
}

/** A refusal as the API server answers it: the HTTP status, the Status object's reason and its message. */
export interface ApiRefusal {
  code: number;
  reason: 'BadRequest' | 'Invalid';
  message: string;
}

const INTEGER = /^-?\d+$/;

/**
 * Why the API server would refuse `GET …/pods/{name}/log` with these query parameters, or undefined when it
 * would answer. The rules of kubernetes/kubernetes pkg/registry/core/pod/rest/log.go (LogREST.Get) and
 * pkg/registry/core/pod/strategy.go (LogLocation):
 * - a parameter that is not an integer cannot be decoded into PodLogOptions: 400 BadRequest;
 * - ValidatePodLogOptions: limitBytes "must be greater than 0", tailLines "must be greater than or equal to
 *   0", else 422 Invalid (errors.NewInvalid of kind PodLogOptions);
 * - no container named and the pod has several: 400 "a container name must be specified for pod X, choose
 *   one of: [a b]"; a container the pod does not have: 400 "container X is not valid for pod Y";
 * - a container that has not started yet: the kubelet's 400 "container … is waiting to start".
 */
export function podLogRefusal(pod: Json, query: URLSearchParams): ApiRefusal | undefined {
  const name = String(pod?.metadata?.name ?? '');
  for (const field of ['limitBytes', 'tailLines'] as const) {
    const value = query.get(field);
    if (value !== null && !INTEGER.test(value)) {
      return {
        code: 400,
        reason: 'BadRequest',
        message: `couldn't decode PodLogOptions: ${field}: strconv.ParseInt: parsing "${value}": invalid syntax`,
      };
    }
  }
  const invalid: string[] = [];
  const limit = query.get('limitBytes');
  if (limit !== null && Number(limit) < 1)
    invalid.push(`limitBytes: Invalid value: ${limit}: must be greater than 0`);
  const tail = query.get('tailLines');
  if (tail !== null && Number(tail) < 0) {
    invalid.push(`tailLines: Invalid value: ${tail}: must be greater than or equal to 0`);
  }
  if (invalid.length > 0) {
    return {
      code: 422,
      reason: 'Invalid',
      message: `PodLogOptions "${name}" is invalid: ${invalid.join(', ')}`,
    };
  }
  const containers: string[] = (pod?.spec?.containers ?? []).map((container: Json) =>
    String(container?.name),
  );
  const container = query.get('container') ?? '';
  if (container === '' && containers.length !== 1) {
    return {
      code: 400,
      reason: 'BadRequest',
      message: `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`,
    };
  }
  if (container !== '' && !containers.includes(container)) {
    return {
      code: 400,
      reason: 'BadRequest',
      message: `container ${container} is not valid for pod ${name}`,
    };
  }
  const chosen = container || containers[0];
  const waiting = (pod?.status?.containerStatuses ?? []).find((status: Json) => status?.name === chosen)
    ?.state?.waiting?.reason;
  if (waiting) {
    return {
      code: 400,
      reason: 'BadRequest',
      message: `container "${chosen}" in pod "${name}" is waiting to start: ${waiting}`,
    };
  }
  return undefined;
}
