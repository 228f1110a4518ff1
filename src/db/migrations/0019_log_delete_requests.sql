-- The log store's delete requests (issue 25): Loki's POST/GET/DELETE
-- /loki/api/v1/delete. A request names a tenant's streams and optional line
-- filters (`query`) over a time range (ms, both ends included); until it is
-- processed its lines are filtered out of queries, then removed from the chunks
-- (src/apps/logstore/core/deletion/). Processed requests stay listed, as in the
-- real product; a cancelled one is removed.
create table log_delete_requests (
  tenant text not null,
  request_id text not null,
  query text not null,
  start_ms bigint not null,
  end_ms bigint not null,
  created_ms bigint not null,
  processed_ms bigint,
  deleted_lines bigint not null default 0,
  primary key (tenant, request_id)
);
-- Chunk segment files that still hold the bytes of chunks a delete request
-- rewrote or removed beside live chunks of other streams: their live chunks are
-- copied to a new segment, so the file (and the deleted lines in it) goes
-- (core/chunk-rewrite.ts). Kept here so that a restart finishes the job.
create table log_segments_to_compact (
  segment integer primary key
);
