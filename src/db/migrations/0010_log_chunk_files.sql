-- Log chunks move out of the database (issue 18): chunk bytes live in segment
-- files under the data dir (src/apps/logstore/core/chunk-store.ts); a row
-- keeps the chunk's metadata and where its bytes are. `data` stays for rows
-- written before (format 1) and for the in-memory store (no data dir).
alter table log_chunks alter column data drop not null;
alter table log_chunks add column segment integer;
alter table log_chunks add column seg_offset bigint;
alter table log_chunks add column seg_length integer;
