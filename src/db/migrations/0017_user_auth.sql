-- OpenID Connect / OAuth2 sign-in (issue 23; docs/authentication.md). A user an
-- identity provider signed in is linked by the provider's subject (the ID
-- token's sub), as the real product's user_auth table does: the email or login
-- may change at the provider, the subject does not.
create table user_auth (
  user_id integer not null references users (id) on delete cascade,
  auth_module text not null,
  auth_id text not null,
  created_at timestamptz not null default now(),
  primary key (auth_module, auth_id)
);
create index user_auth_user on user_auth (user_id);
