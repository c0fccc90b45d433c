import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

/**
 * The whole of a backup archive checked before a restore touches anything (issue 32, defect 5): a complete gzip
 * stream (decompressed to its end here, so a truncated file is a message, never zlib's uncaught Z_BUF_ERROR inside
 * PGlite's loader), a well-formed tar (POSIX ustar, as PGlite's `dumpDataDir` writes it: every header's checksum,
 * every entry's data inside the file, the end-of-archive blocks present) and a PostgreSQL data folder (PG_VERSION and
 * global/pg_control among its entries). Whether it is this API's database is asked once PGlite opened it
 * (lib/node/backup.ts). The tar format: POSIX.1-2017, pax "ustar Interchange Format"
 * (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06).
 */
export class ArchiveProblem extends Error {}

const block = 512;

/** What a complete archive holds: its entries' names (without a leading "/" or "./"). */
export async function checkArchive(bytes: Uint8Array): Promise<{ entries: string[]; tarBytes: number }> {
  const tar = await gunzipAsync(bytes).catch((error: NodeJS.ErrnoException) => {
    const why =
      error.code === 'Z_BUF_ERROR'
        ? 'the gzip stream ends early: the file is truncated'
        : error.code === 'Z_DATA_ERROR'
          ? 'not a gzip file, or a damaged one'
          : 'it cannot be decompressed';
    throw new ArchiveProblem(`${why} (${error.message})`);
  });
  return { entries: tarEntries(tar), tarBytes: tar.byteLength };
}

/** The names of a tar's entries, each header checked; throws ArchiveProblem on the first fault. */
export function tarEntries(tar: Uint8Array): string[] {
  const names: string[] = [];
  let offset = 0;
  for (;;) {
    if (offset + block > tar.byteLength) {
      throw new ArchiveProblem(`the tar archive ends at byte ${tar.byteLength} without its end-of-archive blocks`);
    }
    const header = tar.subarray(offset, offset + block);
    if (header.every((byte) => byte === 0)) break;
    const stored = octal(header.subarray(148, 156));
    if (stored === undefined || stored !== checksum(header)) {
      throw new ArchiveProblem(`not a tar archive, or a damaged one: the header at byte ${offset} fails its checksum`);
    }
    if (!text(header.subarray(257, 262)).startsWith('ustar')) {
      throw new ArchiveProblem(`the header at byte ${offset} is not a ustar header`);
    }
    const size = octal(header.subarray(124, 136));
    if (size === undefined) throw new ArchiveProblem(`the header at byte ${offset} has no readable size`);
    const prefix = text(header.subarray(345, 500));
    const name = text(header.subarray(0, 100));
    names.push((prefix ? `${prefix}/${name}` : name).replace(/^(\.\/|\/)+/, ''));
    offset += block + Math.ceil(size / block) * block;
    if (offset > tar.byteLength) {
      throw new ArchiveProblem(
        `the tar archive is cut inside "${names.at(-1)}" (it needs ${offset} bytes, has ${tar.byteLength})`,
      );
    }
  }
  for (const needed of ['PG_VERSION', 'global/pg_control']) {
    if (!names.includes(needed)) {
      throw new ArchiveProblem(`not a backup of the embedded database: the archive has no ${needed} (${names.length} entries)`);
    }
  }
  return names;
}

/** The header's checksum: the sum of its bytes, the checksum field counted as eight spaces. */
function checksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  return sum;
}

/** A NUL- or space-terminated octal field; undefined when it is not one. */
function octal(field: Uint8Array): number | undefined {
  const digits = text(field).trim();
  return /^[0-7]+$/.test(digits) ? Number.parseInt(digits, 8) : undefined;
}

function text(field: Uint8Array): string {
  const end = field.indexOf(0);
  return Buffer.from(end < 0 ? field : field.subarray(0, end)).toString('latin1');
}
