-- The log store: streams (one label set of one tenant) and compressed chunks
-- of their entries. Lines are never stored one per row: a chunk holds many.
create table log_streams (
  id serial primary key,
  tenant text not null,
  key text not null,
  labels jsonb not null,
  created_at bigint not null
);
-- a label set may be tens of kilobytes: its digest is what the index holds
create unique index log_streams_key on log_streams (tenant, md5(key));

create table log_chunks (
  id bigserial primary key,
  stream_id integer not null references log_streams (id) on delete cascade,
  tenant text not null,
  -- nanoseconds since the epoch, inclusive
  from_ns bigint not null,
  to_ns bigint not null,
  lines integer not null,
  -- uncompressed bytes of the lines (and structured metadata)
  bytes bigint not null,
  -- the last write-ahead record whose entries of this stream are in a chunk
  last_seq bigint not null,
  data bytea not null
);
create index log_chunks_stream on log_chunks (stream_id, to_ns);
create index log_chunks_tenant_age on log_chunks (tenant, to_ns);
