import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../functions/core/config';

describe('config.schema.json', () => {
  it('is exactly what the zod schema generates (run `npm run schema` after changing the config)', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../config.schema.json', import.meta.url), 'utf8'));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });
});
