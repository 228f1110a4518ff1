// A push, checked as the real product checks it (reference §2, "Processing
// order"): labels per stream, then timestamp and size per entry; invalid
// entries are dropped and reported, valid ones stored even then (a partial
// success answers 400); the tenant's rate limit applies to the whole request.
import { ApiError } from "../../../lib/errors.ts";
import type { TokenBuckets } from "../../../lib/token-bucket.ts";
import { formatRfc3339 as rfc3339, INT64_MAX, INT64_MIN } from "../../../lib/units.ts";
import { entrySize, type Entry } from "./chunks.ts";
import { labelProblem } from "./labels.ts";
import type { Limits } from "./limits.ts";
import type { LogStore, Stream } from "./store.ts";
import type { RawPush } from "./wal.ts";
import { labelText, type PushStream } from "./push-decode.ts";
import type { TailHub } from "./tail-hub.ts";

const MiB = 1024 * 1024;
/** entries further ahead of the server's clock are refused (the real product's creation_grace_period) */
export const CREATION_GRACE_MS = 10 * 60_000;
/** how long a stream counts as active after its last write */
const ACTIVE_MS = 60 * 60_000;

export interface IngestCounters {
  received(tenant: string, lines: number, bytes: number): void;
  discarded(tenant: string, reason: string, lines: number, bytes: number): void;
}

export interface IngestResult {
  /** 204 when everything was stored; otherwise the grouped errors */
  status: 204 | 400 | 429;
  message?: string;
  /** entries refused (every entry when nothing was stored) */
  refused?: number;
  /** what was stored: entries and their bytes (lines and metadata), as the received counters count them */
  stored?: { lines: number; bytes: number };
}


/** identical messages merged; one message seen once stands alone (the real product's GroupedErrors) */
export function groupErrors(messages: string[]): string {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(m, (counts.get(m) ?? 0) + 1);
  if (counts.size === 1 && messages.length === 1) return messages[0]!;
  return [...counts].map(([m, n]) => `${n} errors like: ${m}`).join("; ");
}

export interface IngestDeps {
  store: LogStore;
  limits: (tenant: string) => Limits;
  buckets: TokenBuckets;
  counters: IngestCounters;
  now: () => number;
  /** live tails, told of what is accepted */
  tails?: TailHub | undefined;
}

/** `raw`: the push's body as it came, written ahead as it is when every entry of it is accepted (wal.ts) */
export async function ingest(deps: IngestDeps, tenant: string, streams: PushStream[], raw?: RawPush): Promise<IngestResult> {
  if (!streams.length) throw new ApiError(422, "error at least one valid stream is required for ingestion");
  const limits = deps.limits(tenant);
  const nowMs = deps.now();
  // whatever the limits, a timestamp must fit the int64 nanoseconds the store (and the real product) keeps
  const oldestAllowed = BigInt(nowMs - limits.reject_old_samples_max_age) * 1_000_000n;
  const oldest = limits.reject_old_samples && oldestAllowed > INT64_MIN ? oldestAllowed : INT64_MIN;
  const newestAllowed = BigInt(nowMs + CREATION_GRACE_MS) * 1_000_000n;
  const newest = newestAllowed < INT64_MAX ? newestAllowed : INT64_MAX;
  const errors: string[] = [];
  let refused = 0;
  const drop = (reason: string, message: string, lines: number, bytes: number) => {
    errors.push(message);
    refused += lines;
    deps.counters.discarded(tenant, reason, lines, bytes);
  };
  const accepted: Array<{ labels: Record<string, string>; text: string; entries: Entry[]; packed: PushStream["packed"] }> = [];
  let lines = 0;
  let bytes = 0;
  for (const s of streams) {
    if (!s.entries.length) continue;
    const text = labelText(s.labels);
    const problem = labelProblem(s.labels, text, limits.max_label_names_per_series, s.text || text);
    if (problem) {
      const reason = problem.startsWith("entry for stream") ? "max_label_names_per_series" : problem.includes("has duplicate label name") ? "duplicate_label_names" : "invalid_labels";
      drop(reason, problem, s.entries.length, s.entries.reduce((n, e) => n + entrySize(e.line, e.metadata), 0));
      continue;
    }
    const entries: Entry[] = [];
    for (const e of s.entries) {
      const lineBytes = e.size ?? Buffer.byteLength(e.line);
      const size = e.metadata ? entrySize(e.line, e.metadata) : lineBytes;
      if (e.ts < oldest) {
        drop("greater_than_max_sample_age", `entry for stream '${text}' has timestamp too old: ${rfc3339(e.ts)}, oldest acceptable timestamp is: ${rfc3339(oldest)}`, 1, size);
      } else if (e.ts > newest) {
        drop("too_far_in_future", `entry for stream '${text}' has timestamp too new: ${rfc3339(e.ts)}`, 1, size);
      } else if (limits.max_line_size > 0 && lineBytes > limits.max_line_size) {
        drop("line_too_long", `Max entry size '${limits.max_line_size}' bytes exceeded for stream '${text}' while adding an entry with length '${lineBytes}' bytes`, 1, size);
      } else if (e.metadata && metadataProblem(e.metadata, text, limits, (reason, message) => drop(reason, message, 1, size))) {
        // refused: the entry's structured metadata is over a limit
      } else {
        // the decoded entry is stored as it is (an Entry with a size): no second object per line
        entries.push(e);
        lines++;
        bytes += size;
      }
    }
    // every entry accepted: the decoder's packed batch is stored as it is (head.ts)
    if (entries.length) accepted.push({ labels: s.labels, text, entries, packed: entries.length === s.entries.length ? s.packed : undefined });
  }
  if (!accepted.length) return { status: 400, message: groupErrors(errors.length ? errors : ["error at least one valid stream is required for ingestion"]), refused };

  const rate = limits.ingestion_rate_mb * MiB;
  if (!deps.buckets.allow(tenant, bytes, rate, limits.ingestion_burst_size_mb * MiB)) {
    deps.counters.discarded(tenant, "rate_limited", lines, bytes);
    return {
      status: 429,
      refused: refused + lines,
      message: `Ingestion rate limit exceeded for user ${tenant} (limit: ${Math.trunc(rate)} bytes/sec) while attempting to ingest '${lines}' lines totaling '${bytes}' bytes, reduce log volume or contact your svc administrator to see if the limit can be increased`,
    };
  }

  // a new stream counts against the tenant's active stream limit
  const batch: Array<{ stream: Stream; entries: Entry[]; packed: PushStream["packed"] }> = [];
  let streamLimited = false;
  let limitedBytes = 0;
  // the tenant's active streams, counted once per push; the streams this push creates count too
  let active = -1;
  for (const a of accepted) {
    let stream = deps.store.find(tenant, a.labels);
    if (!stream) {
      if (limits.max_streams_per_user > 0 && active < 0) active = activeStreams(deps.store.streams(tenant), nowMs);
      if (limits.max_streams_per_user > 0 && active >= limits.max_streams_per_user) {
        streamLimited = true;
        lines -= a.entries.length;
        const refused = a.entries.reduce((n, e) => n + entrySize(e.line, e.metadata), 0);
        limitedBytes += refused;
        drop("stream_limit", `Maximum active stream limit exceeded when trying to create stream ${a.text}, reduce the number of active streams (reduce labels or reduce label values), or contact your svc administrator to see if the limit can be increased, user: '${tenant}'`, a.entries.length, refused);
        continue;
      }
      stream = await deps.store.stream(tenant, a.labels);
      if (active >= 0) active++;
    }
    batch.push({ stream, entries: a.entries, packed: a.packed });
  }
  if (batch.length) {
    // every entry accepted: the body as it came is the write-ahead record (nothing re-serialised)
    deps.store.append(tenant, batch, errors.length === 0 ? raw : undefined);
    // acknowledged only once in the write-ahead log for good (at once for its files; a shared log commits)
    await deps.store.durable();
    deps.tails?.publish(tenant, batch);
    deps.counters.received(tenant, lines, bytes - limitedBytes);
  }
  const stored = batch.length ? { lines, bytes: bytes - limitedBytes } : { lines: 0, bytes: 0 };
  if (!errors.length) return { status: 204, stored };
  return { status: streamLimited ? 429 : 400, message: groupErrors(errors), refused, stored };
}

/**
 * the real product's per-entry structured metadata limits (max_structured_metadata_entries_count,
 * max_structured_metadata_size: names and values, in bytes); true when `refuse` was told why
 */
function metadataProblem(metadata: Record<string, string>, text: string, limits: Limits, refuse: (reason: string, message: string) => void): boolean {
  let count = 0;
  let size = 0;
  for (const k in metadata) {
    count++;
    size += Buffer.byteLength(k) + Buffer.byteLength(metadata[k]!);
  }
  const maxCount = limits.max_structured_metadata_entries_count;
  if (maxCount > 0 && count > maxCount) {
    refuse("structured_metadata_too_many", `stream '${text}' has too many structured metadata labels: '${count}', limit: '${maxCount}'. Please see \`limits_config.max_structured_metadata_entries_count\` or contact your svc administrator to increase it.`);
    return true;
  }
  const maxSize = limits.max_structured_metadata_size;
  if (maxSize > 0 && size > maxSize) {
    refuse("structured_metadata_too_large", `stream '${text}' has structured metadata too large: '${size}' bytes, limit: '${maxSize}' bytes. Please see \`limits_config.max_structured_metadata_size\` or contact your svc administrator to increase it.`);
    return true;
  }
  return false;
}

/** streams written to in the last hour, or still holding unwritten entries */
function activeStreams(streams: Stream[], nowMs: number): number {
  return streams.filter((s) => s.head.length > 0 || nowMs - s.lastWrite < ACTIVE_MS).length;
}
