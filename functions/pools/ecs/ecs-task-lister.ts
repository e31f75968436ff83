/**
 * Finds gridgate's browser tasks in one ECS cluster: ListTasks by startedBy (tags cannot be filtered
 * on), then DescribeTasks with their tags, each call at its API's limit of 100 (aws-constraints 5.3).
 * startedBy is the listing's only filter: the ECS API reference (ListTasks) says "When you specify
 * startedBy as the filter, it must be the only filter that you use", so whether a task is meant to run
 * comes from DescribeTasks.
 */
import { DescribeTasksCommand, type ECSClient, paginateListTasks, type Task } from '@aws-sdk/client-ecs';
import type { FleetBrowser } from '../../core/browser-fleet';
import type { TaskFate } from '../../core/orphan-decisions';
import { privateIpOf } from './ecs-task-address';
import { STARTED_BY, TASK_TAGS, WARM_CLAIMED, WARM_UNCLAIMED } from './task-tags';

/** ListTasks maxResults and DescribeTasks tasks both stop at 100. */
export const ECS_PAGE_SIZE = 100;

/** A task gridgate started that is meant to run, with what its tags say. */
export interface ListedTask extends FleetBrowser {
  /** The bare task ID: what session records keep as their handle (and the fleet's `id`). */
  taskId: string;
  /** The pool tag, for logs and warm pools. */
  pool: string | undefined;
  taskArn: string;
  /** ECS's lastStatus (PROVISIONING, PENDING, RUNNING…). */
  lastStatus: string | undefined;
  /** Its private IPv4 address, once attached. */
  ip: string | undefined;
  /** The warm tag: set on tasks the cleanup started for a warm pool. */
  warm: typeof WARM_UNCLAIMED | typeof WARM_CLAIMED | undefined;
}

export class EcsTaskLister {
  constructor(private readonly ecs: ECSClient) {}

  /**
   * gridgate's tasks in the cluster that are meant to run (PENDING or RUNNING): desiredStatus RUNNING in
   * DescribeTasks. Stopped tasks the listing may still show, and one asked to stop between the two
   * calls, are left out: they are on their way down.
   */
  async running(cluster: string): Promise<ListedTask[]> {
    const arns: string[] = [];
    const pages = paginateListTasks(
      { client: this.ecs, pageSize: ECS_PAGE_SIZE },
      { cluster, startedBy: STARTED_BY },
    );
    for await (const page of pages) arns.push(...(page.taskArns ?? []));
    const listed: ListedTask[] = [];
    for (const batch of batches(arns)) {
      const { tasks = [] } = await this.ecs.send(
        new DescribeTasksCommand({ cluster, tasks: batch, include: ['TAGS'] }),
      );
      for (const task of tasks) {
        if (task.desiredStatus === 'RUNNING' && task.taskArn) listed.push(listedTask(task, task.taskArn));
      }
    }
    return listed;
  }

  /** What became of these tasks (bare IDs) of the cluster; those ECS no longer describes are missing. */
  async fates(cluster: string, taskIds: string[]): Promise<Map<string, TaskFate>> {
    const fates = new Map<string, TaskFate>(taskIds.map((id) => [id, { state: 'missing' }]));
    for (const batch of batches(taskIds)) {
      const { tasks = [] } = await this.ecs.send(new DescribeTasksCommand({ cluster, tasks: batch }));
      for (const task of tasks) {
        if (!task.taskArn) continue;
        fates.set(
          taskIdOf(task.taskArn),
          task.desiredStatus === 'RUNNING'
            ? { state: 'running' }
            : { state: 'stopped', stopCode: task.stopCode },
        );
      }
    }
    return fates;
  }
}

/** The bare task ID from a task ARN, old ("task/<id>") or new ("task/<cluster>/<id>") format. */
export function taskIdOf(taskArn: string): string {
  return taskArn.slice(taskArn.lastIndexOf('/') + 1);
}

function listedTask(task: Task, taskArn: string): ListedTask {
  const tags = new Map((task.tags ?? []).map(({ key, value }) => [key, value]));
  const warm = tags.get(TASK_TAGS.warm);
  const taskId = taskIdOf(taskArn);
  return {
    taskId,
    id: taskId,
    alive: true,
    launchedAt: epochMs(tags.get(TASK_TAGS.createdAt)) ?? task.createdAt?.getTime(),
    sessionKey: tags.get(TASK_TAGS.session) || undefined,
    pool: tags.get(TASK_TAGS.pool) || undefined,
    taskArn,
    lastStatus: task.lastStatus,
    ip: privateIpOf(task),
    warm: warm === WARM_UNCLAIMED || warm === WARM_CLAIMED ? warm : undefined,
  };
}

/** The created-at tag's epoch milliseconds; undefined for anything else, so ECS's own createdAt counts. */
function epochMs(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  return Number(text);
}

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += ECS_PAGE_SIZE) {
    out.push(items.slice(start, start + ECS_PAGE_SIZE));
  }
  return out;
}
