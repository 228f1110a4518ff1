// Stream label sets: read from the Prometheus text form protobuf pushes
// carry (with the LogQL grammar, as the real product reads them), checked
// with the real product's messages, and keyed canonically.
import { ApiError } from "../../../lib/errors.ts";
import { isWellFormed, storableTextProblem } from "../../../lib/storable-text.ts";
import { parseLogQL } from "./logql/parse.ts";

export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
export const MAX_LABEL_NAME_LENGTH = 1024;
export const MAX_LABEL_VALUE_LENGTH = 2048;

/** the first repeated name of a label set read from text ({a="1", a="2"}), checked with the other labels at ingest */
const duplicates = new WeakMap<Record<string, string>, string>();
export const duplicateLabelOf = (labels: Record<string, string>): string | undefined => duplicates.get(labels);

/** {a="1", b="2"} -> {a: "1", b: "2"}; anything but equality matchers is refused */
export function parseLabelSet(text: string): Record<string, string> {
  let parsed;
  try {
    parsed = parseLogQL(text);
  } catch (err) {
    throw new ApiError(400, `couldn't parse labels: ${(err as Error).message}`);
  }
  if (parsed.kind !== "log" || parsed.stages.length || parsed.matchers.some((m) => m.op !== "=")) {
    throw new ApiError(400, `couldn't parse labels: ${text} is not a label set`);
  }
  const out: Record<string, string> = {};
  for (const m of parsed.matchers) {
    // an escape Go's strconv refuses (\udc00): the real parser's syntax error
    if (!isWellFormed(m.value)) throw new ApiError(400, `couldn't parse labels: invalid syntax: the value of label '${m.name}' holds an unpaired surrogate escape`);
    if (m.name in out && !duplicates.has(out)) duplicates.set(out, m.name);
    out[m.name] = m.value;
  }
  return out;
}

/** the canonical key of a label set: sorted names, so {b,a} and {a,b} are one stream */
export function streamKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",");
}

/** why a stream's labels are refused, or undefined (reference §2, validation table) */
export function labelProblem(labels: Record<string, string>, text: string, maxNames: number, pushedText = text): string | undefined {
  const names = Object.keys(labels);
  if (!names.length) return "error at least one label pair is required per stream";
  for (const n of names) {
    if (!LABEL_NAME.test(n)) return `Error parsing labels '${text}' with error: invalid label name '${JSON.stringify(n).slice(1, -1)}'`;
    // the real product keeps a NUL in a label value; PostgreSQL's jsonb cannot (docs/security.md)
    const problem = storableTextProblem(labels[n]!);
    if (problem) return `Error parsing labels '${text}' with error: label value of '${n}' ${problem}`;
  }
  const counted = names.filter((n) => n !== "service_name").length;
  if (maxNames > 0 && counted > maxNames) return `entry for stream '${text}' has ${counted} label names; limit ${maxNames}`;
  const duplicate = duplicateLabelOf(labels);
  if (duplicate !== undefined) return `stream '${pushedText}' has duplicate label name: '${duplicate}'`;
  for (const n of names) {
    if (n.length > MAX_LABEL_NAME_LENGTH) return `stream '${text}' has label name too long: '${n}'`;
    if (labels[n]!.length > MAX_LABEL_VALUE_LENGTH) return `stream '${text}' has label value too long: '${labels[n]}'`;
  }
  return undefined;
}
