-- Identity and access: organizations, users (and service accounts, which are
-- users with is_service_account, as in the real product), memberships, teams,
-- service account tokens, sessions and RBAC roles.
create table orgs (
  id serial primary key,
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index orgs_name_key on orgs (lower(name));

create table users (
  id serial primary key,
  uid text not null unique,
  login text not null,
  email text not null,
  name text not null default '',
  password_hash text,
  is_server_admin boolean not null default false,
  is_disabled boolean not null default false,
  is_service_account boolean not null default false,
  -- the organization used when a request names none
  current_org_id integer references orgs (id) on delete set null,
  theme text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_login_key on users (lower(login));
create unique index users_email_key on users (lower(email));

create table org_members (
  org_id integer not null references orgs (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  role text not null check (role in ('None', 'Viewer', 'Editor', 'Admin')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
create index org_members_user on org_members (user_id);

create table teams (
  id serial primary key,
  uid text not null unique,
  org_id integer not null references orgs (id) on delete cascade,
  name text not null,
  email text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index teams_org_name_key on teams (org_id, lower(name));

create table team_members (
  team_id integer not null references teams (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  -- 0 member, 4 admin (the real product's team permission values)
  permission integer not null default 0,
  created_at timestamptz not null default now(),
  primary key (team_id, user_id)
);
create index team_members_user on team_members (user_id);

create table api_tokens (
  id serial primary key,
  org_id integer not null references orgs (id) on delete cascade,
  service_account_id integer not null references users (id) on delete cascade,
  name text not null,
  -- SHA-256 of the whole token; the token itself is never stored
  hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  is_revoked boolean not null default false
);
create unique index api_tokens_org_name_key on api_tokens (org_id, name);

create table sessions (
  id serial primary key,
  -- SHA-256 of the cookie value
  token_hash text not null unique,
  user_id integer not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  user_agent text not null default '',
  client_ip text not null default ''
);
create index sessions_user on sessions (user_id);

create table roles (
  id serial primary key,
  uid text not null unique,
  -- 0 for global roles
  org_id integer not null,
  name text not null,
  display_name text not null default '',
  description text not null default '',
  group_name text not null default '',
  hidden boolean not null default false,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index roles_org_name_key on roles (org_id, name);

create table role_permissions (
  role_id integer not null references roles (id) on delete cascade,
  action text not null,
  scope text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index role_permissions_role on role_permissions (role_id);

create table team_roles (
  org_id integer not null,
  team_id integer not null references teams (id) on delete cascade,
  role_id integer not null references roles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (team_id, role_id)
);

create table user_roles (
  org_id integer not null,
  user_id integer not null references users (id) on delete cascade,
  role_id integer not null references roles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (org_id, user_id, role_id)
);
