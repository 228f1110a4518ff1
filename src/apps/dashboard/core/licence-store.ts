// The installation's licence: at most one token, verified on the way in and
// again whenever it is read (it may have expired since).
import type { PGlite } from "@electric-sql/pglite";
import { LicenceError, verifyLicenceToken, type LicenceClaims } from "./licence.ts";

export interface LicenceStore {
  /** verifies and stores a token, replacing any other; returns its claims */
  install(token: string, now: number): Promise<LicenceClaims>;
  /** the stored licence's claims, or why it is not valid (undefined: none stored) */
  current(now: number): Promise<LicenceClaims | LicenceError | undefined>;
  remove(): Promise<void>;
}

export function createLicenceStore(pg: PGlite, key: CryptoKey | undefined): LicenceStore {
  const stored = async () => (await pg.query<{ token: string }>("select token from licence where id = 1")).rows[0]?.token;
  return {
    async install(token, now) {
      const claims = await verifyLicenceToken(token, key, now);
      await pg.query(
        "insert into licence (id, token, updated_at) values (1, $1, now()) on conflict (id) do update set token = excluded.token, updated_at = now()",
        [token.trim()],
      );
      return claims;
    },
    async current(now) {
      const token = await stored();
      if (token === undefined) return undefined;
      return verifyLicenceToken(token, key, now).catch((err: unknown) => {
        if (err instanceof LicenceError) return err;
        throw err;
      });
    },
    async remove() {
      await pg.query("delete from licence");
    },
  };
}
