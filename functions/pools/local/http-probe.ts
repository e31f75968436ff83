/** A quick liveness probe of a loopback HTTP endpoint, used before a warm browser is trusted. */
import { request } from 'node:http';

/** True when GET `path` at `address` (host:port) answers 200 within `timeoutMs`: alive and not wedged. */
export function answers(address: string, path: string, timeoutMs: number): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const probe = request(
      { host, port: Number(port), path, agent: false, timeout: timeoutMs },
      (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      },
    );
    probe.once('timeout', () => probe.destroy());
    probe.once('error', () => resolve(false));
    probe.end();
  });
}
