/**
 * The Node server's launcher for eks pools: each pool goes to the launcher of its `auth` — EKS tokens signed
 * with AWS credentials, or a kubeconfig — so a server runs pools of both kinds and loads each only when used.
 */
import type { PoolConfig } from '../../core/config';
import type { Launcher } from '../../core/ports';

export function eksLauncherByAuth(launchers: { aws: Launcher; kubeconfig: Launcher }): Launcher {
  const of = (pool: PoolConfig | undefined): Launcher =>
    pool?.kind === 'eks' && pool.auth === 'kubeconfig' ? launchers.kubeconfig : launchers.aws;
  return {
    start: (request) => of(request.pool).start(request),
    stop: (handle, context) => of(context.pool).stop(handle, context),
  };
}
