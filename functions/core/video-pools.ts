/**
 * Which of a request's pools can serve a socket session's `enableVideo=true` (Moon's option): only those that
 * record video (PoolTraits.recordsVideo). Decided with the pool choice, before the queue: a request no pool can
 * record is refused at once, not after waiting for a slot it could not use, and one some pools can record waits
 * only for theirs. A WebDriver session's `se:recordVideo` is an ask Selenium Grid's own nodes ignore without a
 * recorder, and is left as it is.
 */
import type { PoolConfig } from './config-pools';
import { sessionNotCreated } from './errors';
import type { PoolTraits } from './pool-traits';
import type { RecordingAsk } from './recording-wish';
import type { SocketSessionProtocol } from './socket-session-request';

export interface VideoAsk {
  /** The protocol of a session that is one WebSocket; none: WebDriver. */
  protocol: SocketSessionProtocol | undefined;
  recording: Pick<RecordingAsk, 'video'>;
}

/** The pools that may serve the request; throws `session not created` when it asks a video none records. */
export function poolsThatRecord<P extends PoolConfig>(
  pools: readonly P[],
  ask: VideoAsk,
  traitsOf: (pool: P) => Pick<PoolTraits, 'recordsVideo'>,
): P[] {
  if (!ask.protocol || ask.recording.video !== true) return [...pools];
  const recording = pools.filter((pool) => traitsOf(pool).recordsVideo(pool));
  if (recording.length > 0) return recording;
  const names = pools.map((pool) => pool.name).join(', ');
  const [pool, records, its] = pools.length === 1 ? ['pool', 'records', 'its'] : ['pools', 'record', 'their'];
  throw sessionNotCreated(
    `the ${pool} ${names} ${records} no video: ${its} browsers run without a video recorder, so enableVideo ` +
      'cannot be served there',
  );
}
