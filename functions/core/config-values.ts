/** The value types config files are written in: durations, sizes, names, colours, header names, CIDR blocks. */
// A namespace import lets bundlers keep only what is used; `{ z }` keeps all of zod, every locale too.
import * as z from 'zod';
import { parseDuration } from './duration';

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
const SIZE = /^(\d+)\s*(B|KB|MB|GB)$/i;
const SIZE_FACTOR = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as const;

export const duration = z
  .string()
  .regex(DURATION, 'must be a duration such as "90s", "5m" or "1h30m"')
  .transform((text) => parseDuration(text) as number)
  .meta({ description: 'A duration: a number with ms, s, m or h, e.g. "90s", "5m", "1h30m".' });

export const byteSize = z
  .union([z.number().int().positive(), z.string().regex(SIZE, 'must be a size such as "64MB"')])
  .transform((value) => {
    if (typeof value === 'number') return value;
    const [, count, unit] = SIZE.exec(value) as RegExpExecArray;
    return Number(count) * SIZE_FACTOR[(unit as string).toUpperCase() as keyof typeof SIZE_FACTOR];
  })
  .meta({
    description: 'Bytes, as a number or a string with B, KB, MB or GB (binary multiples), e.g. "64MB".',
  });

export const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'must be 1–40 letters, digits, ".", "_" or "-"');
export const color = z.string().regex(/^[a-z0-9-]{1,63}$/, 'must be 1–63 lower-case letters, digits or "-"');

// An HTTP field name (RFC 9110 §5.1: a token).
export const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name such as "X-Grid-Color"');

export const cidr = z
  .string()
  .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'must be an IPv4 CIDR block such as "10.0.0.0/16"');

/** Names no environment colour may take by default: they mean shared stages, not feature environments. */
export const DEFAULT_RESERVED_COLORS = ['test', 'regression', 'online', 'dev', 'release', 'pressure'];
