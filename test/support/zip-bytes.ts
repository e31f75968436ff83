/**
 * Zip archives written byte by byte (PKWARE APPNOTE 4.3.7 local headers, 4.3.12 central directory, 4.3.16
 * end record), so tests can make the hostile ones a zip library refuses to write: `../` and absolute names,
 * symbolic links, sizes that lie, several entries.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: Buffer | string;
  /** Deflate (method 8) instead of storing (method 0). */
  deflate?: boolean;
  /** The Unix mode kept in the external attributes (0o100644 a file, 0o120777 a symbolic link). */
  mode?: number;
  /** The uncompressed size the headers claim, when it should not be the truth. */
  claimedSize?: number;
  /** Sets the "encrypted" flag (the data is not really encrypted). */
  encrypted?: boolean;
}

const UNIX_MADE_BY = (3 << 8) | 20;

export function zipBytes(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data);
    const body = entry.deflate ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name, 'utf8');
    const flags = 0x0800 | (entry.encrypted ? 1 : 0); // bit 11: the name is UTF-8
    const fields = {
      method: entry.deflate ? 8 : 0,
      crc: crc32(data),
      compressed: body.length,
      size: entry.claimedSize ?? data.length,
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(fields.method, 8);
    local.writeUInt32LE(fields.crc, 14);
    local.writeUInt32LE(fields.compressed, 18);
    local.writeUInt32LE(fields.size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(UNIX_MADE_BY, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(fields.method, 10);
    central.writeUInt32LE(fields.crc, 16);
    central.writeUInt32LE(fields.compressed, 20);
    central.writeUInt32LE(fields.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
