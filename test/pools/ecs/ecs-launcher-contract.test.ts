/**
 * The Launcher contract against the ecs launcher over the fake ECS API (test/support/fake-ecs-api.ts: a real
 * ECSClient, RunTask refused as ECS refuses it, each task a real chromedriver on a loopback IP of its own).
 */
import { EcsLauncher } from '../../../functions/pools/ecs/ecs-launcher';
import { launcherContract } from '../../contract/launcher.contract';
import { FakeEcsApi } from '../../support/fake-ecs-api';
import { CollectingLogger } from '../../support/fakes';
import { ecsPool } from '../../support/one-pool-config';
import { freePort } from '../../support/processes';

// Running: every task ECS has not yet seen stopped (StopTask answers once the task's container is gone).
launcherContract('EcsLauncher', async () => {
  const ecs = await FakeEcsApi.start({ containerPort: await freePort() });
  const logger = new CollectingLogger();
  return {
    launcher: new EcsLauncher({ ecs: ecs.client(), logger }),
    logger,
    pool: ecsPool(ecs.poolSettings()),
    running: () => [...ecs.tasks.values()].filter((task) => task.lastStatus !== 'STOPPED').length,
    // A task ID of ECS's form (32 hex digits) that no RunTask gave.
    unknownHandle: '0123456789abcdef0123456789abcdef',
    dispose: () => ecs.close(),
  };
});
