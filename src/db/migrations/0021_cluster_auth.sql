-- Sign-in state that several nodes on one PostgreSQL database share (issue 26;
-- core/identity/login-throttle.ts and auth-tickets.ts). With PGlite (one
-- process per database) the same state is kept in memory and these tables
-- stay empty.
--
-- login_failures: the lock-out's failed attempts per key (the digest of
-- "user:<id>", "name:<login>" or "second-factor:<id>"), as the times (ms) of
-- the latest ones, newest first, at most security.login_max_attempts of them
-- (only whether that many fall in the window matters); until_ms: when the
-- newest leaves the window, after which the row means nothing and is swept.
create table login_failures (
  key_hash text primary key,
  failures bigint[] not null,
  until_ms bigint not null
);
create index login_failures_until on login_failures (until_ms);

-- auth_tickets: short-lived, single-use sign-in state under the digest of a
-- random id only the browser holds (in a cookie): an OpenID Connect sign-in
-- on its way to the provider and back (state, nonce, PKCE verifier), a
-- sign-in waiting for its second factor's code. Taken with delete ... returning,
-- so of two nodes completing the same one, one does.
create table auth_tickets (
  id_hash text primary key,
  kind text not null,
  body jsonb not null,
  until_ms bigint not null
);
create index auth_tickets_until on auth_tickets (until_ms);
