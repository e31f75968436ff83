import { describe, expect, it } from 'vitest';
import { freePortOn } from '../../functions/adapters/net/loopback-ports';

describe('free loopback ports for helpers', () => {
  // The system may give a port just closed to the next bind(0): once in about 2000 calls in a row here, and
  // a few hundred repeats in 2000 calls. Two helpers given one port fail their start (pasta refuses both).
  it('never hands out one port twice, one call after another or many at once', async () => {
    const ports: number[] = [];
    for (let call = 0; call < 1000; call++) ports.push(await freePortOn('127.0.0.2'));
    for (let batch = 0; batch < 25; batch++) {
      ports.push(...(await Promise.all(Array.from({ length: 8 }, () => freePortOn('127.0.0.2')))));
    }
    expect(new Set(ports).size).toBe(ports.length);
  });
});
