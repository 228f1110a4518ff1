// Decoding a posted rule group (Mimir's ruler/api.go): anything that does not
// decode into a group is "unable to decode rule group". Decoding is strict,
// as yaml.v3 with KnownFields: an unknown field in the group or in a rule, a
// value of the wrong type, or a duration model.ParseDuration refuses
// (interval, for, keep_firing_for, query_offset, evaluation_delay) is a decode
// error, not a validation error. So a body such as `:::` (a map with the key
// "::") is refused as undecodable, as the real ruler does (conformance 115),
// while an empty body decodes to a group without a name. Scalars keep their
// source text (`name: 1.0` is "1.0"), as yaml.v3 does for string fields.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node as YamlNode } from "yaml";
import { parsePromDuration } from "./durations.ts";
import type { Rule, RuleGroup } from "./group-format.ts";

/** where a rule's record, alert and expr values were in the posted YAML (0:0 when missing, as yaml.v3's zero Node) */
export interface RulePositions {
  record: string;
  alert: string;
  expr: string;
}

export interface DecodedGroup {
  group: RuleGroup;
  positions: RulePositions[];
  sourceTenants: string[];
}

export class DecodeError extends Error {}

const GROUP_FIELDS = new Set(["name", "interval", "query_offset", "evaluation_delay", "limit", "rules", "source_tenants", "align_evaluation_time_on_interval"]);
const RULE_FIELDS = new Set(["record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"]);

class Decoder {
  readonly lines = new LineCounter();
  doc: Document.Parsed | undefined;

  deref(node: unknown): YamlNode | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(this.doc!);
      if (!target) throw new DecodeError("unresolved alias");
      return this.deref(target);
    }
    return node as YamlNode;
  }

  isNull(node: YamlNode | null): boolean {
    return node === null || (isScalar(node) && node.value === null);
  }

  position(node: YamlNode | null): string {
    if (!node?.range) return "0:0";
    const { line, col } = this.lines.linePos(node.range[0]);
    return `${line}:${col}`;
  }

  text(node: YamlNode | null): string {
    if (this.isNull(node)) return "";
    if (!isScalar(node)) throw new DecodeError("not a scalar");
    const text = typeof node.source === "string" ? node.source : String(node.value);
    if (text.includes("\0")) throw new DecodeError("NUL in a string"); // jsonb cannot hold it
    return text;
  }

  duration(node: YamlNode | null): number | undefined {
    if (this.isNull(node)) return undefined;
    try {
      return parsePromDuration(this.text(node));
    } catch (err) {
      throw new DecodeError((err as Error).message);
    }
  }

  int(node: YamlNode | null): number {
    if (this.isNull(node)) return 0;
    const text = this.text(node).replaceAll("_", "");
    if (!/^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|\d+)$/.test(text)) throw new DecodeError("not an int");
    const n = Number(text.replace(/^\+/, "").replace(/^(-?)0[oO]/, "$10o"));
    if (!Number.isSafeInteger(n)) throw new DecodeError("not an int");
    return n;
  }

  bool(node: YamlNode | null): boolean {
    if (this.isNull(node)) return false;
    const text = this.text(node);
    if (/^(true|True|TRUE|y|Y|yes|Yes|YES|on|On|ON)$/.test(text)) return true;
    if (/^(false|False|FALSE|n|N|no|No|NO|off|Off|OFF)$/.test(text)) return false;
    throw new DecodeError("not a bool");
  }

  stringMap(node: YamlNode | null): Record<string, string> {
    if (this.isNull(node)) return {};
    if (!isMap(node)) throw new DecodeError("not a map");
    const out: Record<string, string> = {};
    for (const pair of node.items) {
      out[this.text(this.deref(pair.key))] = this.text(this.deref(pair.value));
    }
    return out;
  }

  fields(node: YamlNode, known: Set<string>): Map<string, YamlNode | null> {
    if (!isMap(node)) throw new DecodeError("not a map");
    const out = new Map<string, YamlNode | null>();
    for (const pair of node.items) {
      const key = this.text(this.deref(pair.key));
      if (!known.has(key)) throw new DecodeError(`field ${key} not found`);
      if (out.has(key)) throw new DecodeError(`mapping key "${key}" already defined`);
      out.set(key, this.deref(pair.value));
    }
    return out;
  }

  rule(node: YamlNode | null): { rule: Rule; positions: RulePositions } {
    const positions: RulePositions = { record: "0:0", alert: "0:0", expr: "0:0" };
    const rule: Rule = { expr: "" };
    if (this.isNull(node)) return { rule, positions };
    const f = this.fields(node!, RULE_FIELDS);
    const record = this.text(f.get("record") ?? null);
    const alert = this.text(f.get("alert") ?? null);
    if (f.has("record")) positions.record = this.position(f.get("record")!);
    if (f.has("alert")) positions.alert = this.position(f.get("alert")!);
    if (f.has("expr")) positions.expr = this.position(f.get("expr")!);
    if (record) rule.record = record;
    if (alert) rule.alert = alert;
    rule.expr = this.text(f.get("expr") ?? null);
    const forMs = this.duration(f.get("for") ?? null);
    if (forMs) rule.for = forMs;
    const keep = this.duration(f.get("keep_firing_for") ?? null);
    if (keep) rule.keep_firing_for = keep;
    const labels = this.stringMap(f.get("labels") ?? null);
    if (Object.keys(labels).length > 0) rule.labels = labels;
    const annotations = this.stringMap(f.get("annotations") ?? null);
    if (Object.keys(annotations).length > 0) rule.annotations = annotations;
    return { rule, positions };
  }

  decode(text: string): DecodedGroup {
    const docs = parseAllDocuments(text, { lineCounter: this.lines, prettyErrors: false });
    if (!Array.isArray(docs)) throw new DecodeError("not a YAML stream");
    const empty: DecodedGroup = { group: { name: "", rules: [] }, positions: [], sourceTenants: [] };
    this.doc = docs[0];
    if (!this.doc) return empty;
    if (this.doc.errors.length > 0) throw new DecodeError(this.doc.errors[0]!.message);
    const root = this.deref(this.doc.contents);
    if (this.isNull(root)) return empty;
    const f = this.fields(root!, GROUP_FIELDS);
    const group: RuleGroup = { name: this.text(f.get("name") ?? null), rules: [] };
    const interval = this.duration(f.get("interval") ?? null);
    if (interval) group.interval = interval;
    for (const key of ["query_offset", "evaluation_delay"] as const) {
      const d = this.duration(f.get(key) ?? null);
      if (d !== undefined) group[key] = d;
    }
    const limit = this.int(f.get("limit") ?? null);
    if (limit) group.limit = limit;
    if (this.bool(f.get("align_evaluation_time_on_interval") ?? null)) group.align_evaluation_time_on_interval = true;
    const positions: RulePositions[] = [];
    const rules = f.get("rules") ?? null;
    if (!this.isNull(rules)) {
      if (!isSeq(rules)) throw new DecodeError("rules is not a sequence");
      for (const item of rules.items) {
        const decoded = this.rule(this.deref(item));
        group.rules.push(decoded.rule);
        positions.push(decoded.positions);
      }
    }
    const tenantsNode = f.get("source_tenants") ?? null;
    const sourceTenants: string[] = [];
    if (!this.isNull(tenantsNode)) {
      if (!isSeq(tenantsNode)) throw new DecodeError("source_tenants is not a sequence");
      for (const item of tenantsNode.items) sourceTenants.push(this.text(this.deref(item)));
    }
    return { group, positions, sourceTenants };
  }
}

/** decodes a posted rule group; throws DecodeError when it is not one */
export function decodeRuleGroup(text: string): DecodedGroup {
  try {
    return new Decoder().decode(text);
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new DecodeError((err as Error).message);
  }
}
