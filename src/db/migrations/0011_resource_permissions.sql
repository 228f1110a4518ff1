-- Managed folder and dashboard permissions (issue 21): a user, a team or a
-- basic role holds View (1), Edit (2) or Admin (4) on one folder or dashboard
-- (src/apps/dashboard/core/identity/resource-permissions.ts). Viewers and
-- Editors reach dashboards through these entries from now on, so every
-- folder and dashboard at the root that exists already gets the defaults a
-- new one gets (Editor: Edit, Viewer: View): nobody loses access.
create table resource_permissions (
  id serial primary key,
  org_id integer not null,
  kind text not null check (kind in ('folders', 'dashboards')),
  uid text not null,
  user_id integer references users (id) on delete cascade,
  team_id integer references teams (id) on delete cascade,
  builtin_role text check (builtin_role in ('Viewer', 'Editor')),
  permission smallint not null check (permission in (1, 2, 4)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (num_nonnulls(user_id, team_id, builtin_role) = 1)
);
create index resource_permissions_resource on resource_permissions (org_id, kind, uid);

insert into resource_permissions (org_id, kind, uid, builtin_role, permission)
select case when r.namespace ~ '^org-[0-9]+$' then substring(r.namespace from 5)::integer else 1 end,
       case r.api_group when 'folder.svc.app' then 'folders' else 'dashboards' end,
       r.name, d.role, d.level
  from resources r, (values ('Editor', 2), ('Viewer', 1)) as d(role, level)
 where ((r.api_group = 'folder.svc.app' and r.resource = 'folders') or (r.api_group = 'dashboard.svc.app' and r.resource = 'dashboards'))
   and coalesce(r.object->'metadata'->'annotations'->>'svc.app/folder', '') = '';
