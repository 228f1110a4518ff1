// Writing chunk rows to metrics_chunks: the flush of closed chunks and the
// chunks a deletion encoded again, in batches of one statement each.
import type { Sql, SqlTx } from "../../../db/sql.ts";

export interface ChunkRow {
  tenant: string;
  seriesId: number;
  minT: number;
  maxT: number;
  samples: number;
  data: Uint8Array;
}

export const FLUSH_BATCH = 2000;

/** inserts chunk rows (a row already there, same series and first sample, is kept) */
export async function insertChunkRows(tx: Sql | SqlTx, rows: readonly ChunkRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += FLUSH_BATCH) {
    const batch = rows.slice(i, i + FLUSH_BATCH);
    // bytea travels as hex text: PGlite serialises bytea[] parameters slowly
    await tx.query(
      `insert into metrics_chunks (tenant, series_id, min_t, max_t, samples, data)
       select * from unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[], $5::int[], $6::text[]::bytea[]) on conflict do nothing`,
      [
        batch.map((r) => r.tenant),
        batch.map((r) => r.seriesId),
        batch.map((r) => r.minT),
        batch.map((r) => r.maxT),
        batch.map((r) => r.samples),
        batch.map((r) => `\\x${Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength).toString("hex")}`),
      ],
    );
  }
}
