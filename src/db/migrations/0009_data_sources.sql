-- Data sources, their managed permissions and team label rules, and every
-- secret of the service, sealed (envelope encryption, src/lib/envelope.ts).

-- One row per sealed secret: a data source's secureJsonData key
-- (owner "datasource:<id>"), a secure value (owner "securevalue:<namespace>/<name>").
-- key_id names the key-encryption key, so a rotation finds what to re-wrap.
create table secrets (
  owner text not null,
  field text not null,
  key_id text not null,
  sealed text not null,
  updated_at timestamptz not null default now(),
  primary key (owner, field)
);
create index secrets_key_id on secrets (key_id);

create table data_sources (
  id serial primary key,
  org_id integer not null,
  uid text not null,
  name text not null,
  type text not null,
  access text not null default 'proxy',
  url text not null default '',
  user_name text not null default '',
  database_name text not null default '',
  basic_auth boolean not null default false,
  basic_auth_user text not null default '',
  with_credentials boolean not null default false,
  is_default boolean not null default false,
  json_data jsonb,
  -- secureJsonData keys that name a secure value instead of holding a secret: {key: name}
  secure_refs jsonb not null default '{}',
  version integer not null default 1,
  -- provisioned from the config file's datasources block; read_only unless it says editable
  provisioned boolean not null default false,
  read_only boolean not null default false,
  -- the default permission entries were given (enterprise), so an emptied list stays empty
  permissions_initialized boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index data_sources_uid_key on data_sources (org_id, uid);
create unique index data_sources_name_key on data_sources (org_id, name);

-- Managed data source permissions (enterprise): a user, a team or a basic role
-- holds Query, Edit or Admin on one data source.
create table datasource_permissions (
  id serial primary key,
  datasource_id integer not null references data_sources (id) on delete cascade,
  user_id integer references users (id) on delete cascade,
  team_id integer references teams (id) on delete cascade,
  builtin_role text check (builtin_role in ('Viewer', 'Editor', 'Admin')),
  permission text not null check (permission in ('Query', 'Edit', 'Admin')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (num_nonnulls(user_id, team_id, builtin_role) = 1)
);
create unique index datasource_permissions_key
  on datasource_permissions (datasource_id, coalesce(user_id, 0), coalesce(team_id, 0), coalesce(builtin_role, ''));

-- Label-based access rules of teams on a data source: label selectors, any one
-- of which a stream must match for a member of the team.
create table datasource_lbac_rules (
  datasource_id integer not null references data_sources (id) on delete cascade,
  team_id integer not null references teams (id) on delete cascade,
  rules jsonb not null,
  primary key (datasource_id, team_id)
);
