/**
 * How gridgate marks the ECS tasks it starts, shared by the launcher (RunTask) and the cleanup
 * (ListTasks by startedBy, DescribeTasks with tags): change one, change both.
 */

/** RunTask's startedBy (≤ 128 chars): ListTasks can filter on it, so every gridgate task carries it. */
export const STARTED_BY = 'gridgate';

/** Tag keys (ListTasks cannot filter on tags; DescribeTasks with include TAGS returns them). */
export const TASK_TAGS = {
  /** Present on every task gridgate starts: "true". */
  grid: 'gridgate',
  /** gridgate's session key: names the session record and quota slot. */
  session: 'gridgate:session',
  user: 'gridgate:user',
  pool: 'gridgate:pool',
  /** Epoch milliseconds when the launch began (for a claimed warm task: the claim), as decimal text. */
  createdAt: 'gridgate:created-at',
  /** On warm pool tasks only: "unclaimed" from RunTask, "claimed" once a session took it (TagResource). */
  warm: 'gridgate:warm',
} as const;

export const WARM_UNCLAIMED = 'unclaimed';
export const WARM_CLAIMED = 'claimed';
