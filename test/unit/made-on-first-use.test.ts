import { describe, expect, it } from 'vitest';
import { madeOnFirstUse, madeOnFirstUsePer } from '../../functions/core/made-on-first-use';

describe('madeOnFirstUse', () => {
  it('makes the value once, for every caller, even those asking while it is made', async () => {
    let makes = 0;
    const value = madeOnFirstUse(async () => ++makes);
    expect(await Promise.all([value(), value()])).toEqual([1, 1]);
    expect(await value()).toBe(1);
    expect(makes).toBe(1);
  });

  it('does not keep a failure: the next caller makes it again', async () => {
    let makes = 0;
    const value = madeOnFirstUse(async () => {
      makes += 1;
      if (makes === 1) throw new Error('throttled');
      return 'client';
    });
    await expect(value()).rejects.toThrow('throttled');
    expect(await value()).toBe('client');
    expect(await value()).toBe('client');
    expect(makes).toBe(2);
  });
});

describe('madeOnFirstUsePer', () => {
  it('makes one value per key, named by keyOf, and retries only the key that failed', async () => {
    const made: string[] = [];
    const clientIn = madeOnFirstUsePer(
      async ({ region, bucket }: { region: string; bucket: string }) => {
        made.push(`${region}/${bucket}`);
        if (bucket === 'refusing' && made.filter((where) => where.endsWith('refusing')).length === 1) {
          throw new Error('no credentials yet');
        }
        return `${bucket} in ${region}`;
      },
      ({ region, bucket }) => `${region}/${bucket}`,
    );
    expect(await clientIn({ region: 'eu-west-1', bucket: 'videos' })).toBe('videos in eu-west-1');
    expect(await clientIn({ region: 'eu-west-1', bucket: 'videos' })).toBe('videos in eu-west-1');
    expect(await clientIn({ region: 'us-east-1', bucket: 'videos' })).toBe('videos in us-east-1');
    await expect(clientIn({ region: 'eu-west-1', bucket: 'refusing' })).rejects.toThrow('no credentials');
    expect(await clientIn({ region: 'eu-west-1', bucket: 'refusing' })).toBe('refusing in eu-west-1');
    expect(made).toEqual([
      'eu-west-1/videos',
      'us-east-1/videos',
      'eu-west-1/refusing',
      'eu-west-1/refusing',
    ]);
  });
});
