/**
 * An ECS client for code that must not call ECS in the test at hand (a warm count reads the store only):
 * loopback port 9 (discard) and fake credentials, so a call that does go out fails instead of reaching AWS.
 * Destroy it after the test.
 */
import { ECSClient } from '@aws-sdk/client-ecs';

export function unreachableEcsClient(): ECSClient {
  return new ECSClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}
