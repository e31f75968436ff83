/**
 * A WarmTaskStore in memory for unit tests, with the DynamoDB store's contract (claims taken one at a time,
 * a session's second claim gets its task back), plus switches a test needs: a store that fails.
 */
import type { WarmClaim, WarmTask, WarmTaskStore } from '../../functions/core/warm-task-store';

export class MemoryWarmTasks implements WarmTaskStore {
  readonly tasks = new Map<string, WarmTask>();
  /** Every call, in order, e.g. "claim fargate". */
  readonly calls: string[] = [];
  /** Set: every call rejects with it. */
  failure: Error | undefined;

  async claim(pool: string, { key, at }: WarmClaim): Promise<WarmTask | undefined> {
    this.record(`claim ${pool}`);
    const ofPool = [...this.tasks.values()].filter((task) => task.pool === pool);
    const mine = ofPool.find((task) => task.state === 'claimed' && task.session === key);
    if (mine) return { ...mine };
    const idle = ofPool.find((task) => task.state === 'idle');
    if (!idle) return undefined;
    Object.assign(idle, { state: 'claimed', session: key, claimedAt: at });
    return { ...idle };
  }

  async register(task: WarmTask): Promise<boolean> {
    this.record(`register ${task.pool} ${task.taskId}`);
    if (this.tasks.has(task.taskId)) return false;
    this.tasks.set(task.taskId, { ...task });
    return true;
  }

  async list(pool: string): Promise<WarmTask[]> {
    this.record(`list ${pool}`);
    return [...this.tasks.values()].filter((task) => task.pool === pool).map((task) => ({ ...task }));
  }

  async remove(pool: string, taskId: string): Promise<void> {
    this.record(`remove ${pool} ${taskId}`);
    if (this.tasks.get(taskId)?.pool === pool) this.tasks.delete(taskId);
  }

  async retire(pool: string, taskId: string): Promise<boolean> {
    this.record(`retire ${pool} ${taskId}`);
    const task = this.tasks.get(taskId);
    if (task?.pool !== pool || task.state !== 'idle') return false;
    this.tasks.delete(taskId);
    return true;
  }

  private record(call: string): void {
    this.calls.push(call);
    if (this.failure) throw this.failure;
  }
}
