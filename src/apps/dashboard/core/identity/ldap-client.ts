// One LDAP server, through ldapts (asynchronous: nothing here blocks the event
// loop): connect (ldap://, ldaps://, or StartTLS), bind with the service
// account (or, with %s in bind_dn, as the user: the real product's single
// bind), find the user by search_filter with the name escaped for LDAP filters
// (RFC 4515: no filter injection), bind as the user's DN to check the password,
// read the mapped attributes and the groups (member_of, or group_search_filter).
// A user known already (the active sync, the debug API's sync) is found again by
// its stored login (loginFilter), not by what it typed at sign-in. A search base
// that does not exist (noSuchObject) is no answer, never "not found".
// Every connection and operation is bounded by the server's timeout.
import type { ConnectionOptions } from "node:tls";
import { Client, Filter, InvalidCredentialsError, type Entry } from "ldapts";
import type { LdapServerConfig } from "../../../../config/ldap.ts";

export interface LdapUser {
  dn: string;
  login: string;
  email: string;
  /** given name and surname, as the real product joins them */
  name: string;
  givenName: string;
  surname: string;
  /** group DNs (or member_of values) */
  groups: string[];
}

/** the server could not be reached or answered with an error other than "wrong password" */
export class LdapUnavailableError extends Error {
  constructor(readonly where: string, cause: unknown, hint = "") {
    super(`LDAP server ${where}: ${describe(cause)}${hint}`);
    this.name = "LdapUnavailableError";
  }
}

/**
 * The server answered, but not with one user: a search base that does not exist (or that the bind
 * account may not read: servers answer both as noSuchObject), or a filter matching several entries.
 * Nothing may be concluded about the user ("not found" would disable it), but the host is not
 * down either: it is not set aside as one that does not answer.
 */
export class LdapAnswerError extends LdapUnavailableError {
  constructor(where: string, message: string) {
    super(where, new Error(message));
    this.name = "LdapAnswerError";
  }
}

/**
 * A server that requires a client certificate (OpenLDAP's TLSVerifyClient demand) and gets none
 * closes the connection right after the TLS handshake, which the client only sees as a closed
 * connection at its first operation: said in plain words when no client certificate is configured.
 */
function hintOf(server: LdapServerConfig, err: unknown): string {
  if (!(server.useSsl || server.startTls) || server.clientCert) return "";
  return /Connection closed before message response|certificate required|CERTIFICATE_REQUIRED/i.test(describe(err))
    ? " (the server closed the TLS connection: it may require a client certificate, client_cert and client_key in ldap.toml)"
    : "";
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** RFC 4514: a value put into a DN (bind_dn's %s) */
export function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=\0]/g, (c) => (c === "\0" ? "\\00" : `\\${c}`))
    .replace(/^([ #])/, "\\$1")
    .replace(/ $/, "\\ ");
}

/** a search filter with each %s replaced by the value, escaped */
export function filterWith(template: string, value: string): string {
  return template.split("%s").join(Filter.escape(value));
}

/**
 * The filter that finds a known user again by its stored login (the active sync, the debug API's
 * sync, the check before a sign-in disables a user): search_filter's restrictions with %s as a
 * wildcard, AND the username attribute equal to the login, escaped. It does not depend on what the
 * user typed at sign-in: with search_filter "(mail=%s)" and username "uid" the login is the uid,
 * and "(mail=erin)" would find nobody. Without a username attribute the login is what was typed,
 * and search_filter is used with it as at sign-in.
 */
export function loginFilter(server: Pick<LdapServerConfig, "searchFilter" | "attributes">, login: string): string {
  const attribute = server.attributes.username.trim();
  // no attribute (or one no entry can hold: RFC 4512 descriptor or OID, options allowed): the login was what was typed
  if (!/^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)(?:;[A-Za-z0-9-]+)*$/.test(attribute) || attribute.toLowerCase() === "dn") return filterWith(server.searchFilter, login);
  const template = server.searchFilter.trim();
  const restrictions = (template.startsWith("(") ? template : `(${template})`).split("%s").join("*").replace(/\*{2,}/g, "*");
  return `(&${restrictions}(${attribute}=${Filter.escape(login)}))`;
}

function tlsOptionsOf(server: LdapServerConfig, host: string): ConnectionOptions {
  const isIp = /^[\d.]+$|:/.test(host);
  return {
    ...(server.rootCaCert ? { ca: server.rootCaCert } : {}),
    ...(server.clientCert ? { cert: server.clientCert, key: server.clientKey } : {}),
    rejectUnauthorized: !server.sslSkipVerify,
    minVersion: server.minTlsVersion === "TLS1.3" ? "TLSv1.3" : "TLSv1.2",
    ...(isIp ? {} : { servername: host }),
  };
}

export function whereOf(server: LdapServerConfig, host = server.hosts[0]!): string {
  return `${server.useSsl ? "ldaps" : "ldap"}://${host}:${server.port}${server.startTls ? " (StartTLS)" : ""}`;
}

/** a client of one host (ldapts connects at the first operation); the caller unbinds */
async function connect(server: LdapServerConfig, host: string): Promise<{ client: Client; where: string }> {
  const where = whereOf(server, host);
  const ms = server.timeoutSeconds * 1000;
  const client = new Client({
    url: `${server.useSsl ? "ldaps" : "ldap"}://${host.includes(":") ? `[${host}]` : host}:${server.port}`,
    timeout: ms,
    connectTimeout: ms,
    strictDN: false,
    ...(server.useSsl ? { tlsOptions: tlsOptionsOf(server, host) } : {}),
  });
  try {
    if (server.startTls) await client.startTLS(tlsOptionsOf(server, host));
    return { client, where };
  } catch (err) {
    await client.unbind().catch(() => {});
    throw new LdapUnavailableError(where, err, hintOf(server, err));
  }
}

const attr = (entry: Entry, name: string): string[] => {
  if (!name) return [];
  if (name.toLowerCase() === "dn") return [entry.dn];
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  const v = key === undefined ? undefined : entry[key];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString("utf8") : String(x)));
};

async function bindService(client: Client, server: LdapServerConfig): Promise<void> {
  if (server.bindDn) await client.bind(server.bindDn, server.bindPassword);
}

export type Verified = { user: LdapUser } | { wrongPassword: true } | { notFound: true };

/**
 * Finds the user on this server and, when a password is given, checks it.
 * Throws LdapUnavailableError when the server cannot answer.
 */
export async function findUser(server: LdapServerConfig, login: string, password?: string, byLogin = false): Promise<Verified> {
  // several hosts (host = "a b"): the next one when one cannot answer; hosts that just failed go last
  let last: unknown;
  const now = Date.now();
  const hosts = [...server.hosts].sort((a, b) => Number(isDown(server, a, now)) - Number(isDown(server, b, now)));
  for (const host of hosts) {
    // a host that could not answer a moment ago is not waited for again (its timeout at every sign-in)
    if (isDown(server, host, now)) {
      last = new LdapUnavailableError(whereOf(server, host), new Error(`did not answer in the last ${DOWN_MS / 1000} s; tried again after that`));
      continue;
    }
    try {
      const found = await findUserOn(server, host, login, password, byLogin);
      down.delete(whereOf(server, host));
      return found;
    } catch (err) {
      if (err instanceof LdapUnavailableError && !(err instanceof LdapAnswerError)) markDown(server, host);
      last = err;
    }
  }
  throw last;
}

/** hosts that could not answer, until when they are not tried again (by address; bounded) */
const down = new Map<string, number>();
const DOWN_MS = 30_000;
const isDown = (server: LdapServerConfig, host: string, now: number) => (down.get(whereOf(server, host)) ?? 0) > now;
function markDown(server: LdapServerConfig, host: string): void {
  if (down.size > 1000) down.clear();
  down.set(whereOf(server, host), Date.now() + DOWN_MS);
}

async function findUserOn(server: LdapServerConfig, host: string, login: string, password: string | undefined, byLogin: boolean): Promise<Verified> {
  const { client, where } = await connect(server, host);
  const singleBind = server.bindDn.includes("%s");
  try {
    try {
      if (singleBind) {
        if (password === undefined) return { notFound: true };
        await client.bind(server.bindDn.split("%s").join(escapeDnValue(login)), password);
      } else {
        await bindService(client, server);
      }
    } catch (err) {
      if (singleBind && err instanceof InvalidCredentialsError) return { wrongPassword: true };
      throw err;
    }
    const a = server.attributes;
    const attributes = [...new Set([a.name, a.surname, a.username, a.email, a.memberOf, server.groupSearchFilterUserAttribute].filter((x) => x && x.toLowerCase() !== "dn"))];
    const filter = byLogin ? loginFilter(server, login) : filterWith(server.searchFilter, login);
    let entries: Entry[] = [];
    const missing: string[] = [];
    for (const base of server.searchBaseDns) {
      const r = await client.search(base, { scope: "sub", filter, attributes, sizeLimit: 2, timeLimit: server.timeoutSeconds }).catch((err: unknown) => {
        // noSuchObject: the base DN does not exist, or the bind account may not read it (a
        // reorganised tree, a typo in search_base_dns, an empty directory, lost rights). It is
        // no answer about the user: never "not found", which would disable every user
        if ((err as { code?: number }).code === 32) {
          missing.push(base);
          return { searchEntries: [] as Entry[] };
        }
        throw err;
      });
      entries = r.searchEntries;
      if (entries.length) break;
    }
    if (entries.length === 0 && missing.length) {
      throw new LdapAnswerError(where, `search base ${missing.map((b) => `"${b}"`).join(", ")} does not exist or cannot be read by the bind account (noSuchObject): check search_base_dns and the bind account's rights; users are not judged "not found" meanwhile`);
    }
    if (entries.length === 0) return { notFound: true };
    // the filter must name one user: two matches is a configuration problem, never a choice
    if (entries.length > 1) throw new LdapAnswerError(where, `search_filter ${server.searchFilter} matches more than one entry for this user name`);
    const entry = entries[0]!;
    if (password !== undefined && !singleBind) {
      try {
        await client.bind(entry.dn, password);
      } catch (err) {
        if (err instanceof InvalidCredentialsError) return { wrongPassword: true };
        throw err;
      }
      // groups are read with the service account's rights, as the real product does
      await bindService(client, server);
    }
    let groups = attr(entry, a.memberOf);
    if (server.groupSearchFilter) {
      const value = server.groupSearchFilterUserAttribute ? attr(entry, server.groupSearchFilterUserAttribute)[0] ?? "" : entry.dn;
      const groupFilter = filterWith(server.groupSearchFilter, value);
      groups = [];
      for (const base of server.groupSearchBaseDns) {
        const r = await client.search(base, { scope: "sub", filter: groupFilter, attributes: ["dn"], timeLimit: server.timeoutSeconds });
        for (const g of r.searchEntries) groups.push(g.dn);
      }
    }
    const givenName = attr(entry, a.name)[0] ?? "";
    const surname = attr(entry, a.surname)[0] ?? "";
    return {
      user: {
        dn: entry.dn,
        login: attr(entry, a.username)[0] ?? login,
        email: attr(entry, a.email)[0] ?? "",
        name: [givenName, surname].filter(Boolean).join(" "),
        givenName,
        surname,
        groups: [...new Set(groups)],
      },
    };
  } catch (err) {
    if (err instanceof LdapUnavailableError) throw err;
    throw new LdapUnavailableError(where, err, hintOf(server, err));
  } finally {
    await client.unbind().catch(() => {});
  }
}

/** GET /api/admin/ldap/status: can each host be reached (and the service account bind)? */
export async function pingServer(server: LdapServerConfig): Promise<Array<{ host: string; port: number; available: boolean; error: string }>> {
  return Promise.all(
    server.hosts.map(async (host) => {
      try {
        const { client } = await connect(server, host);
        try {
          if (!server.bindDn.includes("%s")) await bindService(client, server);
          // an operation, so a connection actually opens (ldapts connects lazily)
          await client.search("", { scope: "base", filter: "(objectClass=*)", attributes: ["namingContexts"], timeLimit: server.timeoutSeconds });
        } finally {
          await client.unbind().catch(() => {});
        }
        return { host, port: server.port, available: true, error: "" };
      } catch (err) {
        return { host, port: server.port, available: false, error: err instanceof LdapUnavailableError ? err.message : `${describe(err)}${hintOf(server, err)}` };
      }
    }),
  );
}
