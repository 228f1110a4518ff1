// Evaluation of a log pipeline on one entry: line filters, the json and
// logfmt parsers (extracted labels), label filters, line_format,
// label_format, keep and drop. An entry's structured metadata joins its
// stream's labels before the first stage (metadata.ts).
import type { LabelFilter, Matcher, NamedLabel, Stage } from "./parse.ts";
import type { Template } from "./template.ts";
import { PARSED, withMetadata, type LabelKinds } from "./metadata.ts";

export interface Processed {
  line: string;
  labels: Record<string, string>;
  /** when tracked: the category of each label that is not the stream's (metadata.ts) */
  kinds?: LabelKinds | undefined;
}

export function matches(m: Matcher, value: string | undefined): boolean {
  const v = value ?? "";
  switch (m.op) {
    case "=": return v === m.value;
    case "!=": return v !== m.value;
    case "=~": return m.re!.test(v);
    case "!~": return !m.re!.test(v);
  }
}

export function matchesAll(matchers: readonly Matcher[], labels: Record<string, string>): boolean {
  return matchers.every((m) => matches(m, labels[m.name]));
}

/** a label name the way the real product sanitises extracted keys */
const sanitise = (k: string) => k.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^(\d)/, "_$1");

function flattenJson(value: unknown, prefix: string, out: Record<string, string>) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flattenJson(v, prefix ? `${prefix}_${sanitise(k)}` : sanitise(k), out);
  } else if (prefix && !Array.isArray(value)) {
    out[prefix] = value === null ? "" : typeof value === "string" ? value : String(value);
  }
}

/** key=value pairs; values may be double-quoted */
function parseLogfmt(line: string, out: Record<string, string>): boolean {
  const re = /([^\s=]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?/g;
  let ok = true;
  for (const m of line.matchAll(re)) {
    const key = sanitise(m[1]!);
    let value = m[2] ?? "";
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        ok = false;
      }
    }
    if (key) out[key] = value;
  }
  return ok;
}

function labelFilter(f: LabelFilter, labels: Record<string, string>): boolean {
  switch (f.kind) {
    case "and": return labelFilter(f.left, labels) && labelFilter(f.right, labels);
    case "or": return labelFilter(f.left, labels) || labelFilter(f.right, labels);
    case "match": return matches(f.matcher, labels[f.matcher.name]);
    case "number": {
      const v = Number(labels[f.name]);
      if (labels[f.name] === undefined || Number.isNaN(v)) return false;
      switch (f.op) {
        case ">": return v > f.value;
        case ">=": return v >= f.value;
        case "<": return v < f.value;
        case "<=": return v <= f.value;
        case "==": return v === f.value;
        case "!=": return v !== f.value;
      }
    }
  }
}

/** a label a parser extracts: renamed `<name>_extracted` when the stream has a label of that name, as Loki does */
function extractedName(name: string, streamLabels: Record<string, string>): string {
  return name in streamLabels ? `${name}_extracted` : name;
}

/** the line through a line_format template; a failure keeps the line and sets the real product's error label */
function format(template: Template, line: string, p: Processed, maxLength: number | undefined): string {
  try {
    return template.render({ labels: p.labels, line, maxLength });
  } catch {
    setParsed(p, "__error__", "TemplateFormatErr");
    return line;
  }
}

/** a label a stage sets (parsers, label_format templates, error labels): Loki's parsed category */
function setParsed(p: Processed, name: string, value: string): void {
  p.labels[name] = value;
  if (p.kinds) p.kinds[name] = PARSED;
}

/** a label removed by drop, keep or a rename, with its category */
function remove(p: Processed, name: string): void {
  delete p.labels[name];
  if (p.kinds) delete p.kinds[name];
}

/** Loki's special labels keep leaves alone */
const KEEP_ALWAYS = new Set(["__error__", "__error_details__", "__preserve_error__"]);

/** `| drop`: named labels, or those whose value the matcher matches (an absent label reads as "") */
function drop(p: Processed, items: readonly NamedLabel[]): void {
  for (const item of items) if (!item.matcher || matches(item.matcher, p.labels[item.name])) remove(p, item.name);
}

/** `| keep`: only the labels named, or named by a matcher that matches their value */
function keep(p: Processed, items: readonly NamedLabel[]): void {
  if (!items.length) return;
  for (const name of Object.keys(p.labels)) {
    if (KEEP_ALWAYS.has(name)) continue;
    const value = p.labels[name];
    if (!items.some((k) => k.name === name && (!k.matcher || matches(k.matcher, value)))) remove(p, name);
  }
}

/** the entry's own copy of its labels, made once a stage touches them (with the metadata's, and categories when tracked) */
function start(line: string, streamLabels: Record<string, string>, metadata: Record<string, string> | undefined, track: boolean): Processed {
  const kinds: LabelKinds | undefined = track ? {} : undefined;
  return { line, labels: metadata ? withMetadata(streamLabels, metadata, kinds) : { ...streamLabels }, kinds };
}

/**
 * the entry after the pipeline, or undefined when a filter drops it;
 * maxLength caps what one template rendering makes (TEMPLATE_MAX_OUTPUT when absent).
 * `metadata`: the entry's structured metadata; `track`: record the labels' categories
 * (`kinds`, for the categorize-labels encoding)
 */
export function runPipeline(
  stages: readonly Stage[],
  line: string,
  streamLabels: Record<string, string>,
  maxLength?: number,
  metadata?: Record<string, string>,
  track = false,
): Processed | undefined {
  // the stream's labels are copied only once a stage touches labels or the entry has metadata (no closure: this runs per line)
  let p: Processed | undefined = metadata ? start(line, streamLabels, metadata, track) : undefined;
  let current = line;
  for (const s of stages) {
    switch (s.kind) {
      case "line": {
        const f = s.filter;
        const hit = f.re ? f.re.test(current) : current.includes(f.value);
        if ((f.op === "|=" || f.op === "|~") !== hit) return undefined;
        break;
      }
      case "json": {
        p ??= start(line, streamLabels, metadata, track);
        try {
          const extracted: Record<string, string> = {};
          flattenJson(JSON.parse(current), "", extracted);
          for (const [k, v] of Object.entries(extracted)) setParsed(p, extractedName(k, streamLabels), v);
        } catch {
          setParsed(p, "__error__", "JSONParserErr");
        }
        break;
      }
      case "logfmt": {
        p ??= start(line, streamLabels, metadata, track);
        const extracted: Record<string, string> = {};
        if (!parseLogfmt(current, extracted)) setParsed(p, "__error__", "LogfmtParserErr");
        for (const [k, v] of Object.entries(extracted)) setParsed(p, extractedName(k, streamLabels), v);
        break;
      }
      case "regexp": {
        // Loki's regexp parser: named groups of the leftmost match become labels (an unmatched group is "")
        const q = (p ??= start(line, streamLabels, metadata, track));
        const m = s.re.exec(current);
        if (m) m.names.forEach((name, i) => {
          if (name !== undefined) setParsed(q, extractedName(name, streamLabels), m.groups[i] ?? "");
        });
        break;
      }
      case "labels":
        if (!labelFilter(s.filter, (p ??= start(line, streamLabels, metadata, track)).labels)) return undefined;
        break;
      case "label_format": {
        // every template reads the labels as they were before the stage; a rename needs its source
        p ??= start(line, streamLabels, metadata, track);
        const l = p.labels;
        const data = { ...l };
        for (const f of s.formats) {
          if ("rename" in f) {
            // set, then delete the source, in the real product's order (so x=x removes x); the
            // renamed label keeps its source's category (Loki 3's LabelsFormatter)
            if (f.rename in l) {
              l[f.name] = l[f.rename]!;
              if (p.kinds) {
                const kind = p.kinds[f.rename];
                if (kind) p.kinds[f.name] = kind;
                else delete p.kinds[f.name];
              }
              remove(p, f.rename);
            }
            continue;
          }
          try {
            setParsed(p, f.name, f.template.render({ labels: data, line: current, maxLength }));
          } catch {
            setParsed(p, "__error__", "TemplateFormatErr");
          }
        }
        break;
      }
      case "line_format":
        p ??= start(line, streamLabels, metadata, track);
        current = format(s.compiled, current, p, maxLength);
        break;
      case "keep":
        keep((p ??= start(line, streamLabels, metadata, track)), s.labels);
        break;
      case "drop":
        drop((p ??= start(line, streamLabels, metadata, track)), s.labels);
        break;
    }
  }
  return p ? { line: current, labels: p.labels, kinds: p.kinds } : { line: current, labels: streamLabels };
}
