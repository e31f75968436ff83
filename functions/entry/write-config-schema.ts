/** `npm run schema`: writes config.schema.json from the zod schema, so the two never drift. */
import { writeFile } from 'node:fs/promises';
import { configJsonSchema } from '../core/config';

await writeFile(
  new URL('../../config.schema.json', import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
