// How long the database's queries take, as the dashboard's /metrics shows it
// (svc_database_queries_duration_seconds{status}: the real dashboard
// product's database_queries_duration_seconds, its buckets too). Recorded on
// the database object itself, so no caller changes: query(), exec(), and the
// query() and exec() of a transaction's handle. The time is what the caller
// waits, a wait for a connection included (PGlite runs one statement at a
// time; PostgreSQL's pool has a few connections). Each
// observation costs two clock reads and one map lookup: nothing next to a
// statement's ~0.3 ms.
import type { Sql, SqlTx } from "./sql.ts";
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

/** records every statement run through `pg`, and through its transactions' handles, into `histogram` */
export function timeQueries(pg: Sql, histogram: LabelledHistogram): void {
  pg.query = timed(pg.query.bind(pg), histogram);
  pg.exec = timed(pg.exec.bind(pg), histogram);
  const transaction = pg.transaction.bind(pg);
  pg.transaction = <T>(callback: (tx: SqlTx) => Promise<T>) =>
    transaction((tx) => callback({ query: timed(tx.query.bind(tx), histogram), exec: timed(tx.exec.bind(tx), histogram) }));
}
