/** The pools a config may name: one option of a discriminated union per kind, each from its kind's folder. */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { POOL_CONFIGS } from '../pools/pool-configs';
import type { NamedPool } from './pool-config-traits';

/** The kinds' schemas, in the list's order, each keeping its own type. */
type SchemasOf<Kinds extends readonly { schema: z.ZodType }[]> = { [I in keyof Kinds]: Kinds[I]['schema'] };

// `map` types its result as an array of the union; the tuple type says what it is: the list's schemas, in order.
const schemas = POOL_CONFIGS.map((kind) => kind.schema) as unknown as SchemasOf<typeof POOL_CONFIGS>;

export const pool = z.discriminatedUnion('kind', schemas);

/** A pool as parsed, with the name it has in the config's `pools`. */
export type PoolConfig = NamedPool<typeof pool>;
