/**
 * Where an ecs task's browser container logs: the awslogs driver writes it to the stream
 * `{awslogs-stream-prefix}/{container name}/{task ID}` of the task definition's log group (Amazon ECS
 * Developer Guide, "Using the awslogs log driver"). The CDK app sets each pool's prefix with
 * browserLogStreamPrefix and the router reads the stream named by browserLogStream: change one, change both.
 */

/** The awslogs-stream-prefix of a pool's containers: the pool's name. */
export function browserLogStreamPrefix(pool: { name: string }): string {
  return pool.name;
}

/** The log stream of a task's browser container. */
export function browserLogStream(pool: { name: string; containerName: string }, taskId: string): string {
  return `${browserLogStreamPrefix(pool)}/${pool.containerName}/${taskId}`;
}
