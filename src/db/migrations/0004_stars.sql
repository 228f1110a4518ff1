-- Stars: a user's bookmarks of resources (dashboards, folders) per organization.
create table stars (
  user_id integer not null references users (id) on delete cascade,
  org_id integer not null,
  api_group text not null,
  kind text not null,
  name text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, org_id, api_group, kind, name)
);
