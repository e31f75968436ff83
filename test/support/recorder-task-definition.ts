/**
 * An ecs pool's task definition as infra/browser-fleet.ts synthesizes it for a pool with a recorder (its
 * shape held to the stack's by test/infra/recordings.test.ts): the browser, and the non-essential recorder
 * depending on its START, uploading to `bucket`. The fake ECS API runs the recorder's stand-in from it
 * (fake-video-recorder.ts).
 */
import {
  RECORDER_CONTAINER,
  recorderEnvironment,
} from '../../functions/pools/selenium-node/recorder-environment';
import { FAKE_S3_REGION } from './fake-s3';

export function recorderTaskDefinition(port: number, bucket: string) {
  const environment = recorderEnvironment({ port, bucket, region: FAKE_S3_REGION });
  return {
    family: 'gridgate-chrome',
    requiresCompatibilities: ['FARGATE'],
    networkMode: 'awsvpc',
    cpu: '1024',
    memory: '2048',
    containerDefinitions: [
      {
        name: 'browser',
        image: 'selenium/standalone-chrome:latest',
        essential: true,
        portMappings: [{ containerPort: port }],
        stopTimeout: 120,
      },
      {
        name: RECORDER_CONTAINER,
        image: 'selenium/video:ffmpeg-7.1-20250606',
        essential: false,
        environment: Object.entries(environment).map(([name, value]) => ({ name, value })),
        dependsOn: [{ containerName: 'browser', condition: 'START' }],
        stopTimeout: 70,
      },
    ],
  };
}
