-- Several Outpost nodes on one PostgreSQL database (issue 26; docs/scaling.md).
-- cluster_changes: a version per topic (a read model's tables), bumped by the
-- triggers db/change-feed.ts puts on those tables on a PostgreSQL server, with
-- a NOTIFY on channel outpost_changes ("<topic> <version>[ <row detail>]"),
-- both delivered at commit. (PGlite has one process per database: the table
-- and functions are there, the triggers are not.)
-- cluster_nodes: the nodes, their roles, where they listen, which one runs the
-- stores now, and when each was last heard of.
create table cluster_changes (
  topic text primary key,
  version bigint not null
);

create function outpost_changed() returns trigger language plpgsql as $$
declare
  v bigint;
begin
  insert into cluster_changes as c (topic, version) values (tg_argv[0], 1)
    on conflict (topic) do update set version = c.version + 1
    returning c.version into v;
  perform pg_notify('outpost_changes', tg_argv[0] || ' ' || v);
  return null;
end $$;

-- the row's columns named in tg_argv[1] (comma-separated), joined by tabs, ride along
create function outpost_row_changed() returns trigger language plpgsql as $$
declare
  v bigint;
  j jsonb;
  d text := '';
  col text;
  first boolean := true;
begin
  insert into cluster_changes as c (topic, version) values (tg_argv[0], 1)
    on conflict (topic) do update set version = c.version + 1
    returning c.version into v;
  if tg_op = 'DELETE' then j := to_jsonb(old); else j := to_jsonb(new); end if;
  foreach col in array string_to_array(tg_argv[1], ',') loop
    d := d || (case when first then '' else E'\t' end) || coalesce(j ->> col, '');
    first := false;
  end loop;
  perform pg_notify('outpost_changes', tg_argv[0] || ' ' || v || ' ' || d);
  return null;
end $$;

create table cluster_nodes (
  id text primary key,
  name text not null,
  roles text[] not null,
  urls jsonb not null default '{}',
  -- the node holding the store lock: standbys forward the stores' requests to its urls
  store_active boolean not null default false,
  version text not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now()
);
