// Where the metrics store keeps its checkpoints: files in the write-ahead
// log's folder (a data dir), or the database (nodes sharing one PostgreSQL
// server: a standby that takes over reads it there). Either way a checkpoint
// is written and read as a file (checkpoint.ts); the database's place copies
// it in and out in parts.
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sql } from "../../../db/sql.ts";
import { NO_FENCE, type Fence } from "../../../db/fence.ts";
import { listCheckpoints, writeCheckpoint, type CheckpointWriteOptions } from "./checkpoint.ts";
import type { TenantHead } from "./head.ts";

export interface CheckpointPlace {
  /** the newest checkpoint as a file to read (`done` when read), or undefined */
  newest(): Promise<{ file: string; segment: number; done(): void } | undefined>;
  write(segment: number, heads: Iterable<TenantHead>, o: CheckpointWriteOptions): Promise<{ bytes: number; series: number }>;
  /** every checkpoint older than `segment` goes */
  removeBefore(segment: number): Promise<void>;
}

export function fileCheckpoints(dir: string): CheckpointPlace {
  return {
    async newest() {
      const n = listCheckpoints(dir)[0];
      return n ? { ...n, done() {} } : undefined;
    },
    async write(segment, heads, o) {
      const { bytes, series } = await writeCheckpoint(dir, segment, heads, o);
      return { bytes, series };
    },
    async removeBefore(segment) {
      for (const old of listCheckpoints(dir)) if (old.segment < segment) rmSync(old.file, { force: true });
    },
  };
}

/** parts of a checkpoint in the database (bytea rows) */
const PART_BYTES = 16 * 1024 * 1024;
const nameOf = (segment: number) => `checkpoint.${String(segment).padStart(8, "0")}`;

/** checkpoints in table store_blobs; `scratch` holds the file while it is written or read */
export function databaseCheckpoints(sql: Sql, store: string, scratch?: string, fence: Fence = NO_FENCE): CheckpointPlace {
  const tempDir = () => {
    if (scratch) {
      mkdirSync(scratch, { recursive: true, mode: 0o700 });
      return mkdtempSync(join(scratch, "checkpoint-"));
    }
    return mkdtempSync(join(tmpdir(), "outpost-checkpoint-"));
  };
  return {
    async newest() {
      const r = await sql.query<{ name: string }>("select name from store_blobs where store = $1 and part = 0 order by name desc limit 1", [store]);
      const name = r.rows[0]?.name;
      if (!name) return undefined;
      const dir = tempDir();
      const file = join(dir, name);
      const fd = openSync(file, "w", 0o600);
      try {
        for (let part = 0; ; part++) {
          const p = await sql.query<{ bytes: Uint8Array }>("select bytes from store_blobs where store = $1 and name = $2 and part = $3", [store, name, part]);
          const bytes = p.rows[0]?.bytes;
          if (!bytes) break;
          for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
        }
      } finally {
        closeSync(fd);
      }
      return { file, segment: Number(name.slice("checkpoint.".length)), done: () => rmSync(dir, { recursive: true, force: true }) };
    },
    async write(segment, heads, o) {
      const dir = tempDir();
      try {
        const done = await writeCheckpoint(dir, segment, heads, o);
        const name = nameOf(segment);
        // every part in one transaction: a checkpoint is there whole or not at all (and only while this node holds the stores)
        await sql.transaction(async (tx) => {
          await fence.guard(tx);
          await tx.query("delete from store_blobs where store = $1 and name = $2", [store, name]);
          const fd = openSync(done.path, "r");
          try {
            const buf = Buffer.allocUnsafe(PART_BYTES);
            for (let part = 0; ; part++) {
              const n = readSync(fd, buf, 0, PART_BYTES, null);
              if (n === 0 && part > 0) break;
              await tx.query("insert into store_blobs (store, name, part, bytes) values ($1, $2, $3, $4)", [store, name, part, buf.subarray(0, n)]);
              if (n < PART_BYTES) break;
            }
          } finally {
            closeSync(fd);
          }
        });
        return { bytes: done.bytes, series: done.series };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async removeBefore(segment) {
      await sql.transaction(async (tx) => {
        await fence.guard(tx);
        await tx.query("delete from store_blobs where store = $1 and name like 'checkpoint.%' and name < $2", [store, nameOf(segment)]);
      });
    },
  };
}
