-- The installation itself: one row, created on first boot. Its uid names this
-- data dir (licences, support bundles); created_version records which build
-- made it.
create table installation (
  id integer primary key default 1 check (id = 1),
  uid text not null,
  created_at timestamptz not null default now(),
  created_version text not null
);
