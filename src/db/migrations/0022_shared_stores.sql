-- The stores' write-ahead logs and checkpoints in the database, for nodes
-- sharing one PostgreSQL server (issue 26; docs/scaling.md): the active store
-- node appends, a standby that takes over replays them. One row per record
-- (db/shared-wal.ts); a checkpoint (the metrics store's heads) in parts of at
-- most 16 MiB. With PGlite the stores keep these in the data dir's files and
-- the tables stay empty.
create table store_wal (
  seq bigserial primary key,
  store text not null,
  segment integer not null,
  body bytea not null
);
create index store_wal_store_seq on store_wal (store, seq);
create index store_wal_store_segment on store_wal (store, segment);

create table store_blobs (
  store text not null,
  name text not null,
  part integer not null,
  bytes bytea not null,
  primary key (store, name, part)
);

-- The store lock's fencing token: a node that takes the lock bumps it before
-- it replays, and every write of the shared log and checkpoints checks it in
-- its own transaction, so a node that lost the lock without knowing writes
-- nothing more (db/fence.ts).
create table store_epoch (
  id integer primary key default 1 check (id = 1),
  epoch bigint not null
);
insert into store_epoch (id, epoch) values (1, 0);
