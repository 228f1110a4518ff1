-- LDAP sign-in and team sync (issue 23). A user made or kept by an external
-- sign-in names its module ('ldap'; '' for local users): such a user has no
-- password here and is checked against the directory at each sign-in. A team
-- membership added by team sync names the module that added it, so the next
-- sync removes only what a sync added (a membership added by hand stays).
alter table users add column auth_module text not null default '';
alter table team_members add column auth_module text not null default '';
