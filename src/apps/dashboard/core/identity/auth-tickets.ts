// Short-lived, single-use sign-in state under a random id the browser keeps
// in a cookie: an OpenID Connect sign-in between its start and the provider's
// redirect back (oauth.ts), a sign-in waiting for its second factor's code
// (second-factor.ts). One process (PGlite) keeps them in memory. Nodes
// sharing a PostgreSQL database keep them in it (table auth_tickets, by the
// id's digest), since the browser's next request may reach another node;
// taking one is a delete ... returning, so of two nodes only one gets it.
import { randomBytes } from "node:crypto";
import type { Sql } from "../../../../db/sql.ts";
import { sha256 } from "./tokens.ts";

export interface AuthTickets<T> {
  /** keeps `value` until `until` (ms) under a new random id, which it answers */
  issue(value: T, until: number): Promise<string>;
  /** the value of a live ticket, left in place */
  peek(id: string): Promise<T | undefined>;
  /** the value of a live ticket, which is gone afterwards (expired or not): single use */
  take(id: string): Promise<T | undefined>;
}

/** 32 random bytes, base64url */
const ID = /^[A-Za-z0-9_-]{43}$/;
/** how often expired rows are swept (by a node issuing a ticket) */
const SWEEP_MS = 60_000;

/**
 * The tickets of one `kind` ("oauth-flow", "pending-login"); `max`: how many
 * one process keeps in memory, the oldest dropped first (a flood of started
 * sign-ins cannot grow it without bound).
 */
export function createAuthTickets<T>(pg: Sql, kind: string, now: () => number, max: number): AuthTickets<T> {
  // several nodes may share a PostgreSQL database: the ticket must be found by whichever the browser reaches
  return pg.backend === "postgres" ? sharedTickets<T>(pg, kind, now) : memoryTickets<T>(now, max);
}

const newId = () => randomBytes(32).toString("base64url");

function memoryTickets<T>(now: () => number, max: number): AuthTickets<T> {
  const tickets = new Map<string, { value: T; until: number }>();
  const live = (id: string) => {
    const t = tickets.get(id);
    return t && t.until > now() ? t.value : undefined;
  };
  return {
    async issue(value, until) {
      const t = now();
      for (const [id, ticket] of tickets) if (ticket.until <= t) tickets.delete(id);
      while (tickets.size >= max) tickets.delete(tickets.keys().next().value!);
      const id = newId();
      tickets.set(id, { value, until });
      return id;
    },
    peek: async (id) => live(id),
    async take(id) {
      const value = live(id);
      tickets.delete(id);
      return value;
    },
  };
}

function sharedTickets<T>(pg: Sql, kind: string, now: () => number): AuthTickets<T> {
  let swept = 0;
  return {
    async issue(value, until) {
      const t = now();
      if (t - swept >= SWEEP_MS) {
        swept = t;
        // not awaited, and a failure is retried at the next sweep: an expired ticket is never answered anyway
        pg.query("delete from auth_tickets where until_ms <= $1", [t]).catch(() => undefined);
      }
      const id = newId();
      await pg.query("insert into auth_tickets (id_hash, kind, body, until_ms) values ($1, $2, $3::jsonb, $4)", [sha256(id), kind, JSON.stringify(value), until]);
      return id;
    },
    async peek(id) {
      if (!ID.test(id)) return undefined;
      const r = await pg.query<{ body: T }>("select body from auth_tickets where id_hash = $1 and kind = $2 and until_ms > $3", [sha256(id), kind, now()]);
      return r.rows[0]?.body;
    },
    async take(id) {
      if (!ID.test(id)) return undefined;
      const r = await pg.query<{ body: T; until_ms: number }>("delete from auth_tickets where id_hash = $1 and kind = $2 returning body, until_ms", [sha256(id), kind]);
      const row = r.rows[0];
      return row && row.until_ms > now() ? row.body : undefined;
    },
  };
}
