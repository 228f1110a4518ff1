-- Access policies and tokens of the log and metrics stores (issue 22), in the
-- model of the enterprise metrics product's admin API: a policy names the
-- tenants it reaches (realms, "*" for all) and its scopes; a token belongs to
-- one policy and is stored only as the SHA-256 of its secret. Deleting a
-- policy deletes its tokens. version counts updates (the ETag).
create table store_access_policies (
  name text primary key,
  display_name text not null default '',
  realms jsonb not null,
  scopes jsonb not null,
  status text not null default 'active',
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create table store_access_tokens (
  name text primary key,
  display_name text not null default '',
  access_policy text not null references store_access_policies (name) on delete cascade,
  hash text not null unique,
  expiration timestamptz,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index store_access_tokens_policy on store_access_tokens (access_policy);
