/** Where a pool's browsers may live: a decoded session address outside it is never contacted (no SSRF). */
import type { PoolConfig } from './config';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d{1,5}$/;

export function addressAllowed(pool: PoolConfig, address: string): boolean {
  switch (pool.kind) {
    case 'local':
      return LOOPBACK.test(address);
  }
}
