-- The metrics store: tenants of the admin API, the admin token (hashed),
-- series (one label set of one tenant) and compressed chunks of their
-- samples, and the ruler's rule groups.
create table metrics_tenants (
  name text primary key,
  display_name text not null default '',
  status text not null default 'active',
  cluster text not null,
  -- the limits set through the admin API; null when none are set
  limits jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table metrics_admin_token (
  id integer primary key default 1 check (id = 1),
  -- SHA-256 of the token (hex); the token itself is never stored
  hash text not null,
  created_at timestamptz not null default now()
);

create table metrics_series (
  tenant text not null,
  id integer not null,
  labels jsonb not null,
  primary key (tenant, id)
);

create table metrics_chunks (
  tenant text not null,
  series_id integer not null,
  -- milliseconds since the epoch, inclusive
  min_t bigint not null,
  max_t bigint not null,
  samples integer not null,
  -- Prometheus XOR chunk encoding
  data bytea not null,
  primary key (tenant, series_id, min_t)
);
create index metrics_chunks_age on metrics_chunks (tenant, max_t);

create table metrics_rule_groups (
  tenant text not null,
  namespace text not null,
  name text not null,
  -- the group as posted, validated: {name, interval?, rules: [...], ...}
  body jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (tenant, namespace, name)
);
