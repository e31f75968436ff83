/**
 * A value made when first asked and then kept (an SDK client, an adapter whose module stays out of a cold
 * start). A failed make is not kept: the next caller tries again, so a passing failure (a throttled
 * credential fetch, a module load cut short) never sticks for the environment's life.
 */
export function madeOnFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/** The same, one value per key (a table, a Region, a bucket): `keyOf` names what `make` is given. */
export function madeOnFirstUsePer<A, T>(
  make: (of: A) => Promise<T>,
  keyOf: (of: A) => unknown = (of) => of,
): (of: A) => Promise<T> {
  const made = new Map<unknown, Promise<T>>();
  return (of) => {
    const key = keyOf(of);
    let value = made.get(key);
    if (value === undefined) {
      value = make(of).catch((error: unknown) => {
        made.delete(key);
        throw error;
      });
      made.set(key, value);
    }
    return value;
  };
}
