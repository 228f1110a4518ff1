// Structured metadata in LogQL, as Loki 3.x reads it (pkg/logql/log:
// pipeline.go, labels.go). Before any stage, an entry's metadata joins its
// stream's labels: each name normalised as Prometheus' NormalizeLabel does
// (`trace.id` -> `trace_id`, `_x` -> `key_x`, `1x` -> `key_1x`), and renamed
// `<name>_extracted` when the stream has a label of that name
// (LabelsBuilder.Add). A label filter, a template, keep/drop and by/without
// then see one set of labels; parsers override a metadata label of the same
// name (a parsed label wins, labels.go Set).
//
// Loki keeps each label's category (stream, structured metadata, parsed)
// for the `categorize-labels` response encoding; `kinds` records the labels
// that are not the stream's, only when asked (a plain answer needs none).

/** a label's category when it is not the stream's (Loki's StructuredMetadataLabel, ParsedLabel) */
export const METADATA = 1;
export const PARSED = 2;
export type LabelKind = typeof METADATA | typeof PARSED;
export type LabelKinds = Record<string, LabelKind>;

/** Loki's error labels: always in the parsed category */
const isErrorLabel = (name: string) => name === "__error__" || name === "__error_details__";

const normalised = new Map<string, string>();

/** a metadata name as Loki's pipeline reads it (prometheus otlptranslator NormalizeLabel), remembered */
export function normaliseName(name: string): string {
  let out = normalised.get(name);
  if (out !== undefined) return out;
  out = name.replace(/[^a-zA-Z0-9_]/gu, "_");
  if (/^[0-9]/.test(out)) out = `key_${out}`;
  else if (out.startsWith("_") && !out.startsWith("__")) out = `key${out}`;
  if (normalised.size >= 4096) normalised.clear();
  normalised.set(name, out);
  return out;
}

/** the label a metadata name becomes beside the stream's labels */
export function metadataLabel(name: string, streamLabels: Record<string, string>): string {
  const n = normaliseName(name);
  return n in streamLabels ? `${n}_extracted` : n;
}

/** whether an entry's metadata gives it the label `label` (the byte prefilters must not rule such an entry out) */
export function metadataGives(metadata: Record<string, string>, streamLabels: Record<string, string>, label: string): boolean {
  for (const k in metadata) if (metadataLabel(k, streamLabels) === label) return true;
  return false;
}

/**
 * An entry's labels before the first stage: its stream's, and its metadata's
 * (a new object; `kinds` filled when given).
 */
export function withMetadata(streamLabels: Record<string, string>, metadata: Record<string, string>, kinds: LabelKinds | undefined): Record<string, string> {
  const labels = { ...streamLabels };
  for (const k in metadata) {
    const name = metadataLabel(k, streamLabels);
    labels[name] = metadata[k]!;
    if (kinds) kinds[name] = isErrorLabel(name) ? PARSED : METADATA;
  }
  return labels;
}

/** the third element of a categorized value (Loki's marshal.encodeStream): a key only when it holds labels */
export interface EntryCategories {
  structuredMetadata?: Record<string, string>;
  parsed?: Record<string, string>;
}

export interface Categorized {
  /** the labels that are the stream's: the result stream's `stream` */
  stream: Record<string, string>;
  extra: EntryCategories;
}

const NONE: EntryCategories = Object.freeze({});

/**
 * Labels split by category: the stream's, then structured metadata and
 * parsed ones (names in sorted order, as Loki's sorted label sets write them).
 */
export function categorize(labels: Record<string, string>, kinds: LabelKinds | undefined): Categorized {
  if (!kinds) return { stream: labels, extra: NONE };
  let stream: Record<string, string> | undefined;
  let meta: Record<string, string> | undefined;
  let parsed: Record<string, string> | undefined;
  for (const name of Object.keys(labels)) {
    const kind = kinds[name] ?? (isErrorLabel(name) ? PARSED : undefined);
    if (kind === undefined) (stream ??= {})[name] = labels[name]!;
    else if (kind === METADATA) (meta ??= {})[name] = labels[name]!;
    else (parsed ??= {})[name] = labels[name]!;
  }
  if (!meta && !parsed) return { stream: labels, extra: NONE };
  const extra: EntryCategories = {};
  if (meta) extra.structuredMetadata = sorted(meta);
  if (parsed) extra.parsed = sorted(parsed);
  return { stream: stream ?? {}, extra };
}

function sorted(labels: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(labels).sort()) out[k] = labels[k]!;
  return out;
}
