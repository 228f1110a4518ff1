-- Alerting provisioning (issue 21): the real product's provisioning API as
-- stored objects, per organization. Nothing here is evaluated or delivered.

-- Alert rules: who provisioned them ('api', or '' when editable in the UI),
-- the group's evaluation interval and the rule's place in its group. A uid is
-- unique in its organization, as in the real product (it was global).
alter table alert_rules add column provenance text not null default 'api';
alter table alert_rules add column interval_seconds integer not null default 60;
alter table alert_rules add column group_index integer not null default 0;
alter table alert_rules drop constraint alert_rules_uid_key;
create unique index alert_rules_org_uid_key on alert_rules (org_id, uid);
create index alert_rules_group on alert_rules (org_id, folder_uid, rule_group, group_index);

-- An organization's notification policy tree (the routing tree, kept as
-- written) and its provenance. The row is made with the organization's
-- default contact point the first time its alerting objects are touched.
create table alerting_configs (
  org_id integer primary key,
  policy jsonb not null,
  policy_provenance text not null default '',
  updated_at timestamptz not null default now()
);

-- Contact points (integrations): settings without their secure fields, which
-- are sealed in secrets (owner "contactpoint:<id>") and go with the row.
create table alerting_contact_points (
  id serial primary key,
  org_id integer not null,
  uid text not null,
  name text not null,
  type text not null,
  settings jsonb not null,
  disable_resolve_message boolean not null default false,
  provenance text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index alerting_contact_points_uid_key on alerting_contact_points (org_id, uid);
create index alerting_contact_points_org on alerting_contact_points (org_id);

create function alerting_contact_point_secrets_gone() returns trigger language plpgsql as $$
begin
  delete from secrets where owner = 'contactpoint:' || old.id;
  return null;
end $$;
create trigger alerting_contact_points_secrets after delete on alerting_contact_points
  for each row execute function alerting_contact_point_secrets_gone();

-- Mute timings (time intervals), kept as written.
create table alerting_mute_timings (
  org_id integer not null,
  name text not null,
  time_intervals jsonb not null,
  provenance text not null default '',
  updated_at timestamptz not null default now(),
  primary key (org_id, name)
);

-- Notification templates.
create table alerting_templates (
  org_id integer not null,
  name text not null,
  template text not null,
  provenance text not null default '',
  updated_at timestamptz not null default now(),
  primary key (org_id, name)
);
