// Changes made by other nodes sharing one PostgreSQL database, as they
// commit. Each in-memory read model names the tables it is built from; the
// database itself tells every node when a statement changed one of them (a
// trigger per table bumps the topic's version in cluster_changes and sends a
// NOTIFY, both delivered at commit, whoever wrote: a node, the CLI, an
// operator's psql). A node runs the model's reload for what other sessions
// changed; its own writes it already applied in memory. A notification lost
// while the listening connection was down is healed by a re-check of the
// versions every few seconds and at every reconnect.
//
// With PGlite there is one process per database: nothing to hear, no triggers.
import { ADVISORY_LOCK_BASE } from "./migrate.ts";
import type pg from "pg";
import type { Logger } from "../lib/logger.ts";
import type { PostgresDatabase } from "./postgres.ts";

export interface ChangeFeed {
  /**
   * Runs `apply` when another session changes one of `tables` (after its
   * commit): `detail` names the row for a topic with row detail, undefined
   * means "anything may have changed". Call before start().
   */
  on(topic: string, tables: readonly string[], apply: (detail?: string) => void, options?: { rowDetail?: string; deletesOnly?: boolean }): void;
  /** installs what is missing and starts listening; resolves once listening */
  start(): Promise<void>;
  /** true when changes of other nodes can arrive (PostgreSQL) */
  readonly shared: boolean;
  close(): Promise<void>;
}

const CHANNEL = "outpost_changes";
/** how often versions are compared, for notifications lost while not listening */
const RECHECK_MS = 5_000;
const RECONNECT_MS = 1_000;
/** a reload of another node's change that may still be reading when this node writes */
const RACE_MS = 5_000;
/** the advisory lock the trigger set-up runs under, so nodes starting together do not deadlock on DDL */
const SETUP_LOCK = ADVISORY_LOCK_BASE + 1;

/** a feed that never fires: the embedded database has one process */
export function localFeed(): ChangeFeed {
  return { on() {}, start: async () => {}, shared: false, close: async () => {} };
}

interface Topic {
  tables: readonly string[];
  apply: Array<(detail?: string) => void>;
  rowDetail?: string;
  /** only rows going away matter (a new session is looked up when first seen) */
  deletesOnly?: boolean;
}

const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain table or topic name: ${name}`);
  return name;
};

export function postgresFeed(db: PostgresDatabase, logger: Logger): ChangeFeed {
  const topics = new Map<string, Topic>();
  /** the last version of each topic this node has applied (or written itself) */
  const seen = new Map<string, number>();
  let listener: pg.Client | undefined;
  let closed = false;
  let recheckTimer: ReturnType<typeof setInterval> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  const fire = (topic: string, detail?: string) => {
    logger.debug("another node's change applied", { topic, detail: detail ?? "(all)" });
    for (const apply of topics.get(topic)?.apply ?? []) {
      try {
        apply(detail);
      } catch (err) {
        logger.error("applying another node's change failed", { topic, err: String(err) });
      }
    }
  };

  /** when each topic last had another node's change applied */
  const appliedAt = new Map<string, number>();
  /**
   * A version of a topic arrived: applied, unless this node wrote it and had
   * seen every version before it. Even then it is applied when another
   * node's change was applied just before: that reload may have read the
   * tables before this node's write committed, and swapped it out of memory.
   */
  const arrived = (topic: string, version: number, own: boolean, detail?: string) => {
    const last = seen.get(topic) ?? 0;
    if (version <= last) return;
    seen.set(topic, version);
    if (own && version === last + 1 && Date.now() - (appliedAt.get(topic) ?? 0) > RACE_MS) return;
    // another node's change, or a gap: someone else's changes came in between
    appliedAt.set(topic, Date.now());
    fire(topic, own ? undefined : detail);
  };

  const recheck = async () => {
    const r = await db.query<{ topic: string; version: number }>("select topic, version from cluster_changes");
    for (const row of r.rows) {
      if (!topics.has(row.topic)) continue;
      if (row.version > (seen.get(row.topic) ?? 0)) {
        seen.set(row.topic, row.version);
        appliedAt.set(row.topic, Date.now());
        fire(row.topic);
      }
    }
  };

  const listen = async () => {
    const client = await db.connect();
    client.on("notification", (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const [topic, v, ...rest] = msg.payload.split(" ");
      const version = Number(v);
      if (!topic || !Number.isFinite(version)) return;
      arrived(topic, version, db.ownBackend(msg.processId), rest.length ? rest.join(" ") : undefined);
    });
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      client.removeAllListeners("notification");
      client.end().catch(() => undefined);
      if (closed) return;
      logger.warn("the connection listening for other nodes' changes was lost; reconnecting", { err: err?.message });
      reconnectTimer = setTimeout(reconnect, RECONNECT_MS);
    };
    client.on("error", lost);
    client.on("end", () => lost());
    await client.query(`listen ${CHANNEL}`);
    listener = client;
    // what changed while not listening
    await recheck();
  };

  const reconnect = () => {
    if (closed) return;
    listen().catch((err: unknown) => {
      logger.warn("listening for other nodes' changes failed; trying again", { err: String(err) });
      reconnectTimer = setTimeout(reconnect, RECONNECT_MS * 5);
    });
  };

  const install = async () => {
    await db.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock($1)", [SETUP_LOCK]);
      const have = new Set(
        (await tx.query<{ name: string }>("select tgrelid::regclass::text || ' ' || tgname as name from pg_trigger where tgname like 'outpost_changed%'")).rows.map((r) => r.name),
      );
      for (const [topic, t] of topics) {
        for (const spec of t.tables) {
          // "table" or "table(col,col)": then only updates of those columns count (not a last-used time)
          const m = /^([a-z_][a-z0-9_]*)(?:\(([a-z0-9_,]+)\))?$/.exec(spec);
          if (!m) throw new Error(`not a table, or a table with columns: ${spec}`);
          const table = m[1]!;
          const update = m[2] ? `update of ${m[2].split(",").join(", ")}` : "update";
          const name = `outpost_changed_${ident(topic)}`;
          if (have.has(`${table} ${name}`)) continue;
          const each = t.rowDetail
            ? `for each row execute function outpost_row_changed('${ident(topic)}', '${t.rowDetail.split(",").map(ident).join(",")}')`
            : `for each statement execute function outpost_changed('${ident(topic)}')`;
          const events = t.deletesOnly ? "delete" : `insert or ${update} or delete`;
          await tx.exec(`create or replace trigger ${name} after ${events} on ${table} ${each}`);
        }
      }
    });
  };

  return {
    shared: true,
    on(topic, tables, apply, options) {
      const t: Topic = topics.get(topic) ?? { tables: [], apply: [], ...(options?.rowDetail ? { rowDetail: options.rowDetail } : {}), ...(options?.deletesOnly ? { deletesOnly: true } : {}) };
      t.tables = [...new Set([...t.tables, ...tables])];
      t.apply.push(apply);
      topics.set(topic, t);
    },
    async start() {
      await install();
      const r = await db.query<{ topic: string; version: number }>("select topic, version from cluster_changes");
      for (const row of r.rows) seen.set(row.topic, row.version);
      await listen();
      recheckTimer = setInterval(() => {
        recheck().catch((err: unknown) => logger.warn("re-checking other nodes' changes failed", { err: String(err) }));
      }, RECHECK_MS);
      recheckTimer.unref?.();
    },
    async close() {
      closed = true;
      if (recheckTimer) clearInterval(recheckTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => undefined);
    },
  };
}
