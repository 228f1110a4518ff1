-- Legacy content: annotations, library elements and their dashboard
-- connections, preferences, team external groups, reports and the licence.

-- Annotations. A point annotation has epoch_end = epoch; a region is one row.
-- Queries select by overlap (epoch <= to and epoch_end >= from), newest
-- first: annotations_recent serves the order and bounds epoch_end, the
-- longest span per organization (annotations_span) bounds it from above.
create table annotations (
  id serial primary key,
  org_id integer not null,
  alert_id bigint not null default 0,
  dashboard_uid text,
  dashboard_id bigint not null default 0,
  panel_id bigint not null default 0,
  user_id integer not null default 0,
  new_state text not null default '',
  prev_state text not null default '',
  epoch bigint not null,
  epoch_end bigint not null,
  text text not null,
  tags text[] not null default '{}',
  data jsonb not null default '{}',
  created bigint not null,
  updated bigint not null
);
create index annotations_recent on annotations (org_id, epoch_end desc, epoch desc);
create index annotations_span on annotations (org_id, (epoch_end - epoch));
create index annotations_dashboard on annotations (org_id, dashboard_uid, epoch_end desc);
create index annotations_tags on annotations using gin (tags);

-- tag counts kept by a trigger, so the tags endpoint never scans annotations
create table annotation_tags (
  org_id integer not null,
  tag text collate "C" not null,
  count integer not null,
  primary key (org_id, tag)
);
create function annotation_tags_count() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') and cardinality(old.tags) > 0 then
    update annotation_tags set count = count - 1 where org_id = old.org_id and tag = any(old.tags);
    delete from annotation_tags where org_id = old.org_id and count <= 0;
  end if;
  if tg_op in ('INSERT', 'UPDATE') and cardinality(new.tags) > 0 then
    insert into annotation_tags (org_id, tag, count)
      select new.org_id, t, 1 from (select distinct unnest(new.tags) as t) d
      on conflict (org_id, tag) do update set count = annotation_tags.count + 1;
  end if;
  return null;
end $$;
create trigger annotations_tag_counts after insert or update of tags or delete on annotations
  for each row execute function annotation_tags_count();

-- Library elements (panels) and the dashboards that use them.
create table library_elements (
  id serial primary key,
  org_id integer not null,
  uid text not null,
  folder_uid text not null default '',
  name text not null,
  kind integer not null,
  type text not null default '',
  description text not null default '',
  model jsonb not null,
  version integer not null default 1,
  created_at timestamptz not null,
  created_by integer not null,
  updated_at timestamptz not null,
  updated_by integer not null
);
create unique index library_elements_uid_key on library_elements (org_id, uid);
create unique index library_elements_name_key on library_elements (org_id, folder_uid, name, kind);

create table library_connections (
  id serial primary key,
  element_id integer not null references library_elements (id) on delete cascade,
  org_id integer not null,
  dashboard_uid text not null,
  dashboard_id bigint not null,
  created_at timestamptz not null,
  created_by integer not null,
  unique (element_id, dashboard_uid)
);
create index library_connections_dashboard on library_connections (org_id, dashboard_uid);

-- Preferences of a user (in an organization), a team or an organization:
-- exactly one of user_id, team_id is set, or neither for the organization.
create table preferences (
  org_id integer not null,
  user_id integer not null default 0,
  team_id integer not null default 0,
  prefs jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (org_id, user_id, team_id)
);

-- Team sync: external groups whose members belong to a team.
create table team_groups (
  org_id integer not null,
  team_id integer not null references teams (id) on delete cascade,
  group_id text not null,
  created_at timestamptz not null default now(),
  primary key (team_id, group_id)
);

-- Scheduled reports; the body is kept as validated, ids and owners beside it.
create table reports (
  id serial primary key,
  org_id integer not null,
  user_id integer not null,
  body jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index reports_org on reports (org_id);

-- The installation's licence token (at most one row).
create table licence (
  id integer primary key check (id = 1),
  token text not null,
  updated_at timestamptz not null default now()
);
