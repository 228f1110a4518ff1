-- Who disabled a user (issue 23 review): the directory (a user no longer
-- found in LDAP, re-enabled when found again) or an administrator (never
-- undone by a sign-in).
alter table users add column disabled_by_directory boolean not null default false;
