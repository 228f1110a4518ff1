// The installation's licence: at most one token, verified on the way in and
// again whenever it is read (it may have expired since).
import type { Sql } from "../../../../db/sql.ts";
import { LicenceError, verifyLicenceToken, type LicenceClaims } from "./licence.ts";

export interface LicenceStore {
  /** verifies and stores a token, replacing any other; returns its claims */
  install(token: string, now: number): Promise<LicenceClaims>;
  /** the stored licence's claims, or why it is not valid (undefined: none stored) */
  current(now: number): Promise<LicenceClaims | LicenceError | undefined>;
  remove(): Promise<void>;
}

/** http://Host:3000/ and http://host:3000 name the same instance */
export function sameInstance(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u.trim());
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
    } catch {
      return undefined;
    }
  };
  const x = norm(a);
  return x !== undefined && x === norm(b);
}

/**
 * A licence is issued for one instance: its `sub` must be this server's root
 * URL, as the real product binds a licence to its URL.
 */
async function verifyFor(token: string, key: CryptoKey | undefined, now: number, rootUrl: string): Promise<LicenceClaims> {
  const claims = await verifyLicenceToken(token, key, now);
  if (typeof claims.sub !== "string" || !sameInstance(claims.sub, rootUrl)) {
    throw new LicenceError(`licence token was issued for another instance: it must name this server's root URL ${rootUrl}`, "claims");
  }
  return claims;
}

export function createLicenceStore(pg: Sql, key: CryptoKey | undefined, rootUrl: () => string): LicenceStore {
  const stored = async () => (await pg.query<{ token: string }>("select token from licence where id = 1")).rows[0]?.token;
  return {
    async install(token, now) {
      const claims = await verifyFor(token, key, now, rootUrl());
      await pg.query(
        "insert into licence (id, token, updated_at) values (1, $1, now()) on conflict (id) do update set token = excluded.token, updated_at = now()",
        [token.trim()],
      );
      return claims;
    },
    async current(now) {
      const token = await stored();
      if (token === undefined) return undefined;
      return verifyFor(token, key, now, rootUrl()).catch((err: unknown) => {
        if (err instanceof LicenceError) return err;
        throw err;
      });
    },
    async remove() {
      await pg.query("delete from licence");
    },
  };
}
