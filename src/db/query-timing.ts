// How long the database's queries take, as the dashboard's /metrics shows it
// (svc_database_queries_duration_seconds{status}: the real dashboard
// product's database_queries_duration_seconds, its buckets too). Recorded on
// the PGlite instance itself, so no caller changes: query() (sql`` goes
// through it), exec(), and the query(), sql`` and exec() of a transaction's
// handle. The time is what the caller waits, a wait for the single
// connection included (PGlite runs one statement at a time). Each
// observation costs two clock reads and one map lookup: nothing next to a
// statement's ~0.3 ms.
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { exponentialBuckets, LabelledHistogram } from "../lib/labelled-histogram.ts";

export function queryDurations(): LabelledHistogram {
  return new LabelledHistogram("svc_database_queries_duration_seconds", "Database query histogram", ["status"], exponentialBuckets(0.00001, 4, 10));
}

const SUCCESS = ["success"];
const ERROR = ["error"];

type Statement = (...args: never[]) => Promise<unknown>;

function timed<F extends Statement>(run: F, histogram: LabelledHistogram): F {
  return (async (...args: Parameters<F>) => {
    const started = performance.now();
    try {
      const result = await run(...args);
      histogram.observe(SUCCESS, (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      histogram.observe(ERROR, (performance.now() - started) / 1000);
      throw err;
    }
  }) as F;
}

/** records every statement run through `pg` into `histogram` */
export function timeQueries(pg: PGlite, histogram: LabelledHistogram): void {
  pg.query = timed(pg.query.bind(pg), histogram);
  pg.exec = timed(pg.exec.bind(pg), histogram);
  const transaction = pg.transaction.bind(pg);
  pg.transaction = <T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      // the handle's own methods (a plain object): they run the statements without pg.query
      const sql = tx.sql.bind(tx);
      tx.query = timed(tx.query.bind(tx), histogram);
      tx.exec = timed(tx.exec.bind(tx), histogram);
      tx.sql = timed(sql, histogram);
      return callback(tx);
    });
}
