-- Alert rules, as far as folders need them: each belongs to a folder and
-- goes with it (or stops its deletion). The rule body is kept as sent.
create table alert_rules (
  id serial primary key,
  uid text not null unique,
  org_id integer not null,
  folder_uid text not null,
  rule_group text not null,
  title text not null,
  body jsonb not null,
  updated_at timestamptz not null default now()
);
create index alert_rules_folder on alert_rules (org_id, folder_uid);
