// Evaluation of a log pipeline on one entry: line filters, the json and
// logfmt parsers (extracted labels), label filters and line_format.
import type { LabelFilter, Matcher, Stage } from "./parse.ts";
import type { Template } from "./template.ts";

export interface Processed {
  line: string;
  labels: Record<string, string>;
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
    p.labels.__error__ = "TemplateFormatErr";
    return line;
  }
}

/**
 * the entry after the pipeline, or undefined when a filter drops it;
 * maxLength caps what one template rendering makes (TEMPLATE_MAX_OUTPUT when absent)
 */
export function runPipeline(stages: readonly Stage[], line: string, streamLabels: Record<string, string>, maxLength?: number): Processed | undefined {
  // the stream's labels are copied only once a stage touches labels (no closure: this runs per line)
  let p: Processed | undefined;
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
        const l = (p ??= { line, labels: { ...streamLabels } }).labels;
        try {
          const extracted: Record<string, string> = {};
          flattenJson(JSON.parse(current), "", extracted);
          for (const [k, v] of Object.entries(extracted)) l[extractedName(k, streamLabels)] = v;
        } catch {
          l.__error__ = "JSONParserErr";
        }
        break;
      }
      case "logfmt": {
        const l = (p ??= { line, labels: { ...streamLabels } }).labels;
        const extracted: Record<string, string> = {};
        if (!parseLogfmt(current, extracted)) l.__error__ = "LogfmtParserErr";
        for (const [k, v] of Object.entries(extracted)) l[extractedName(k, streamLabels)] = v;
        break;
      }
      case "regexp": {
        // Loki's regexp parser: named groups of the leftmost match become labels (an unmatched group is "")
        const l = (p ??= { line, labels: { ...streamLabels } }).labels;
        const m = s.re.exec(current);
        if (m) m.names.forEach((name, i) => {
          if (name !== undefined) l[extractedName(name, streamLabels)] = m.groups[i] ?? "";
        });
        break;
      }
      case "labels":
        if (!labelFilter(s.filter, (p ??= { line, labels: { ...streamLabels } }).labels)) return undefined;
        break;
      case "label_format": {
        // every template reads the labels as they were before the stage; a rename needs its source
        const l = (p ??= { line, labels: { ...streamLabels } }).labels;
        const data = { ...l };
        for (const f of s.formats) {
          if ("rename" in f) {
            // set, then delete the source, in the real product's order (so x=x removes x)
            if (f.rename in l) {
              l[f.name] = l[f.rename]!;
              delete l[f.rename];
            }
            continue;
          }
          try {
            l[f.name] = f.template.render({ labels: data, line: current, maxLength });
          } catch {
            l.__error__ = "TemplateFormatErr";
          }
        }
        break;
      }
      case "line_format":
        p ??= { line, labels: { ...streamLabels } };
        current = format(s.compiled, current, p!, maxLength);
        break;
    }
  }
  return { line: current, labels: p?.labels ?? streamLabels };
}
