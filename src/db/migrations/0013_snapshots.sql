-- Dashboard snapshots (the real product's /api/snapshots): a dashboard's JSON
-- with its panels' data, shared by an unguessable key and deleted by a
-- second one. expires_at null: never.
create table dashboard_snapshots (
  id serial primary key,
  org_id integer not null,
  user_id integer not null,
  key text not null unique,
  delete_key text not null unique,
  name text not null,
  dashboard jsonb not null,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index dashboard_snapshots_org on dashboard_snapshots (org_id, user_id);
