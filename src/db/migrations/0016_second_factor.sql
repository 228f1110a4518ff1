-- A second factor for local users (TOTP, issue 23). The TOTP secret itself is
-- sealed in secrets (owner "user:<id>", field "totp") and goes with the row;
-- enabled is false from enrolment until a first code confirms it.
-- last_counter is the last 30-second step a code was accepted for: a code is
-- never accepted twice. Recovery codes are kept only as SHA-256 digests (of
-- the user's id and the code), each usable once.
create table user_second_factor (
  user_id integer primary key references users (id) on delete cascade,
  enabled boolean not null default false,
  last_counter bigint,
  created_at timestamptz not null default now(),
  enabled_at timestamptz
);

create table user_recovery_codes (
  user_id integer not null references users (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);

create function user_second_factor_secrets_gone() returns trigger language plpgsql as $$
begin
  delete from secrets where owner = 'user:' || old.user_id;
  return null;
end $$;
create trigger user_second_factor_secrets after delete on user_second_factor
  for each row execute function user_second_factor_secrets_gone();
