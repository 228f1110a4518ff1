// Every secret of the service at rest: sealed with envelope encryption
// (src/lib/envelope.ts) into the secrets table, one row per (owner, field).
// The owner names what the secret belongs to ("datasource:12",
// "securevalue:default/db-password"); owner and field are bound to the
// ciphertext, so a row copied elsewhere does not open. Plain text exists only
// in memory, on the way in and on the way out.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { createKeyring, keyIdOf, SealedValueError, type Keyring } from "../../../../lib/envelope.ts";
import type { Logger } from "../../../../lib/logger.ts";

export type Queryable = Sql | SqlTx;

/** the current key-encryption key and the ones it replaced (still able to open) */
export interface KeySet {
  current: Keyring;
  previous: readonly Keyring[];
}

export async function createKeySet(keys: readonly string[]): Promise<KeySet> {
  if (keys.length === 0) throw new Error("no secret key");
  const rings = await Promise.all([...new Set(keys)].map((k) => createKeyring(k)));
  return { current: rings[0]!, previous: rings.slice(1) };
}

export interface SealedField {
  field: string;
  sealed: string;
}

export interface Secrets {
  /** seals one value of an owner (no database access: store it with write) */
  seal(owner: string, field: string, plaintext: string): Promise<SealedField>;
  /** stores sealed values, replacing any earlier value of the same fields */
  write(db: Queryable, owner: string, sealed: readonly SealedField[]): Promise<void>;
  /** removes the named fields, or every field of the owner */
  remove(db: Queryable, owner: string, fields?: readonly string[]): Promise<void>;
  /** the fields of an owner that hold a value */
  fields(owner: string): Promise<string[]>;
  /** every value of an owner, opened */
  open(owner: string): Promise<Record<string, string>>;
  /** the id of the key new secrets are sealed with */
  currentKeyId(): string;
  /** starts sealing with another key set (after a rotation) */
  useKeys(keys: KeySet): void;
  /** re-wraps every data key not wrapped by the current key; returns how many were re-wrapped and how many could not be opened */
  rewrapAll(): Promise<{ rewrapped: number; unreadable: number }>;
  /** how many stored secrets are wrapped by another key than the current one */
  staleCount(): Promise<number>;
}

const contextOf = (owner: string, field: string) => `${owner}/${field}`;

export function createSecrets(pg: Sql, initial: KeySet, logger: Logger): Secrets {
  let keys = initial;
  const keyringOf = (sealed: string): Keyring => {
    const id = keyIdOf(sealed);
    const ring = [keys.current, ...keys.previous].find((k) => k.id === id);
    if (!ring) throw new SealedValueError(`sealed with key ${id}, which is not configured (security.secret_key, security.previous_secret_keys or the data dir's secret.key)`);
    return ring;
  };

  return {
    async seal(owner, field, plaintext) {
      return { field, sealed: await keys.current.seal(plaintext, contextOf(owner, field)) };
    },
    async write(db, owner, sealed) {
      for (const s of sealed) {
        await db.query(
          `insert into secrets (owner, field, key_id, sealed) values ($1, $2, $3, $4)
           on conflict (owner, field) do update set key_id = excluded.key_id, sealed = excluded.sealed, updated_at = now()`,
          [owner, s.field, keyIdOf(s.sealed), s.sealed],
        );
      }
    },
    async remove(db, owner, fields) {
      if (fields === undefined) await db.query("delete from secrets where owner = $1", [owner]);
      else if (fields.length) await db.query("delete from secrets where owner = $1 and field = any($2::text[])", [owner, fields]);
    },
    async fields(owner) {
      const r = await pg.query<{ field: string }>("select field from secrets where owner = $1 order by field", [owner]);
      return r.rows.map((row) => row.field);
    },
    async open(owner) {
      const r = await pg.query<{ field: string; sealed: string }>("select field, sealed from secrets where owner = $1", [owner]);
      const out: Record<string, string> = {};
      for (const row of r.rows) out[row.field] = await keyringOf(row.sealed).open(row.sealed, contextOf(owner, row.field));
      return out;
    },
    currentKeyId: () => keys.current.id,
    useKeys(next) {
      keys = next;
    },
    async rewrapAll() {
      let rewrapped = 0;
      let unreadable = 0;
      for (;;) {
        const target = keys.current;
        const batch = await pg.query<{ owner: string; field: string; sealed: string }>(
          "select owner, field, sealed from secrets where key_id <> $1 order by owner, field limit 500 offset $2",
          [target.id, unreadable],
        );
        if (batch.rows.length === 0) break;
        const updates: Array<{ owner: string; field: string; old: string; sealed: string }> = [];
        for (const row of batch.rows) {
          try {
            updates.push({ ...row, old: row.sealed, sealed: await target.rewrap(row.sealed, keyringOf(row.sealed)) });
          } catch (err) {
            unreadable++;
            logger.error("a stored secret cannot be re-wrapped", { owner: row.owner, field: row.field, err: (err as Error).message });
          }
        }
        await pg.transaction(async (tx) => {
          for (const u of updates) {
            // only if nobody replaced the value meanwhile (a newer value is already sealed with the current key)
            const r = await tx.query(
              "update secrets set sealed = $4, key_id = $5 where owner = $1 and field = $2 and sealed = $3",
              [u.owner, u.field, u.old, u.sealed, target.id],
            );
            rewrapped += r.affectedRows ?? 0;
          }
        });
      }
      return { rewrapped, unreadable };
    },
    async staleCount() {
      const r = await pg.query<{ n: number }>("select count(*)::int as n from secrets where key_id <> $1", [keys.current.id]);
      return r.rows[0]!.n;
    },
  };
}
