// One evaluation of a rule group, with Prometheus's semantics (rules/group.go,
// recording.go, alerting.go):
// - rules run in order at one timestamp (minus the group's query_offset);
// - a recording rule's samples get __name__ = the record name and the rule's
//   labels (an empty value removes the label);
// - an alerting rule's result series become pending alerts (labels: the
//   series' minus __name__, plus the templated rule labels, plus alertname;
//   templated annotations), firing once `for` has passed (at once when it is
//   0), inactive when absent (kept firing for keep_firing_for); the ALERTS
//   and ALERTS_FOR_STATE series of pending and firing alerts are written;
// - series a rule wrote at its previous evaluation and not at this one get a
//   stale marker, so they end at once rather than after the lookback (where
//   the runtime keeps NaN bits or not: markers are flagged);
// - a query or write error marks the rule's health "err" with lastError and
//   the group goes on with the next rule.
// The for-state is not restored from ALERTS_FOR_STATE after a restart:
// alerts start pending again.
import type { Logger } from "../../../../lib/logger.ts";
import type { Labels, SampleToWrite } from "../types.ts";
import type { Rule, RuleGroup } from "./group-format.ts";
import { compileTemplate, type Template } from "./templates.ts";

export type Health = "ok" | "err" | "unknown";
export type AlertState = "inactive" | "pending" | "firing";

export interface Alert {
  labels: Labels;
  annotations: Labels;
  state: AlertState;
  activeAt: number;
  firedAt?: number;
  resolvedAt?: number;
  keepFiringSince?: number;
  value: number;
}

export interface RuleRuntime {
  rule: Rule;
  health: Health;
  lastError: string;
  lastEvaluation?: number;
  /** seconds */
  evaluationTime: number;
  /** the series written at the last evaluation, by labelsKey */
  previous: Map<string, Labels>;
  /** alerting rules: alerts by labelsKey of their labels */
  active: Map<string, Alert>;
  labelTemplates: Array<[string, Template]>;
  annotationTemplates: Array<[string, Template]>;
}

export interface GroupRuntime {
  tenant: string;
  namespace: string;
  group: RuleGroup;
  /** ms, the group's own or the ruler's default */
  interval: number;
  rules: RuleRuntime[];
  lastEvaluation?: number;
  /** seconds */
  evaluationTime: number;
  /** series of rules an update removed, marked stale at the next evaluation */
  staleSeries: Labels[];
}

export interface EvalDeps {
  instant(tenant: string, expr: string, t: number): Promise<Array<{ labels: Labels; value: number }>>;
  write(tenant: string, samples: SampleToWrite[]): Promise<void>;
  logger: Logger;
}

/** a stale marker for a series at t; flagged, since not every runtime keeps the marker's NaN bits in a number */
const staleSample = (labels: Labels, t: number): SampleToWrite => ({ labels, t, v: Number.NaN, stale: true });

/** alerts resolved longer ago than this are forgotten (Prometheus's resolvedRetention) */
const RESOLVED_RETENTION = 15 * 60_000;

export function labelsKey(labels: Labels): string {
  return JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function newGroupRuntime(tenant: string, namespace: string, group: RuleGroup, defaultInterval: number): GroupRuntime {
  return {
    tenant,
    namespace,
    group,
    interval: group.interval || defaultInterval,
    evaluationTime: 0,
    staleSeries: [],
    rules: group.rules.map((rule) => {
      const compile = (map: Record<string, string> | undefined) =>
        Object.entries(map ?? {}).map(([k, v]) => [k, compileTemplate(v, rule.alert ?? "")] as [string, Template]);
      return {
        rule,
        health: "unknown",
        lastError: "",
        evaluationTime: 0,
        previous: new Map(),
        active: new Map(),
        labelTemplates: rule.alert ? compile(rule.labels) : [],
        annotationTemplates: rule.alert ? compile(rule.annotations) : [],
      };
    }),
  };
}

const ruleIdentity = (rule: Rule) => `${rule.alert ?? rule.record ?? ""}${labelsKey(rule.labels ?? {})}`;

/**
 * Prometheus's Group.CopyState: an updated group keeps the previous series
 * and active alerts of rules with the same name and labels; series of rules
 * that are gone are marked stale at its next evaluation.
 */
export function copyState(to: GroupRuntime, from: GroupRuntime): void {
  to.lastEvaluation = from.lastEvaluation;
  to.evaluationTime = from.evaluationTime;
  const unmatched = new Map<string, number[]>();
  from.rules.forEach((r, i) => {
    const id = ruleIdentity(r.rule);
    unmatched.set(id, [...(unmatched.get(id) ?? []), i]);
  });
  for (const r of to.rules) {
    const indexes = unmatched.get(ruleIdentity(r.rule));
    const fi = indexes?.shift();
    if (fi === undefined) continue;
    const old = from.rules[fi]!;
    r.previous = old.previous;
    if (r.rule.alert && old.rule.alert) for (const [k, a] of old.active) r.active.set(k, a);
  }
  to.staleSeries = [...from.staleSeries];
  for (const indexes of unmatched.values()) for (const i of indexes) to.staleSeries.push(...from.rules[i]!.previous.values());
}

/** stale markers for everything a group wrote last (when it is deleted) */
export function staleSamplesOf(g: GroupRuntime, t: number): SampleToWrite[] {
  const all = [...g.staleSeries, ...g.rules.flatMap((r) => [...r.previous.values()])];
  return all.map((labels) => staleSample(labels, t));
}

const withoutEmpty = (labels: Labels): Labels => Object.fromEntries(Object.entries(labels).filter(([, v]) => v !== ""));

async function evalRecording(g: GroupRuntime, r: RuleRuntime, t: number, deps: EvalDeps): Promise<SampleToWrite[]> {
  const vector = await deps.instant(g.tenant, r.rule.expr, t);
  const seen = new Set<string>();
  const out: SampleToWrite[] = [];
  for (const s of vector) {
    const labels = withoutEmpty({ ...s.labels, __name__: r.rule.record!, ...r.rule.labels });
    const key = labelsKey(labels);
    if (seen.has(key)) throw new Error("vector contains metrics with the same labelset after applying rule labels");
    seen.add(key);
    out.push({ labels, t, v: s.value });
  }
  const limit = g.group.limit ?? 0;
  if (limit > 0 && out.length > limit) throw new Error(`exceeded limit of ${limit} with ${out.length} series`);
  return out;
}

async function evalAlerting(g: GroupRuntime, r: RuleRuntime, ts: number, t: number, deps: EvalDeps): Promise<SampleToWrite[]> {
  const rule = r.rule;
  const name = rule.alert!;
  const vector = await deps.instant(g.tenant, rule.expr, t);
  const found = new Map<string, Alert>();
  for (const s of vector) {
    const data = { labels: s.labels, value: s.value };
    const labels: Labels = { ...s.labels };
    delete labels.__name__;
    for (const [k, tpl] of r.labelTemplates) {
      const v = tpl.expand(data);
      if (v === "") delete labels[k];
      else labels[k] = v;
    }
    labels.alertname = name;
    const annotations: Labels = {};
    for (const [k, tpl] of r.annotationTemplates) annotations[k] = tpl.expand(data);
    const key = labelsKey(labels);
    if (found.has(key)) throw new Error("vector contains metrics with the same labelset after applying alert labels");
    found.set(key, { labels, annotations, state: "pending", activeAt: ts, value: s.value });
  }
  for (const [key, a] of found) {
    const existing = r.active.get(key);
    if (existing && existing.state !== "inactive") {
      existing.value = a.value;
      existing.annotations = a.annotations;
    } else r.active.set(key, a);
  }
  const holdFor = rule.for ?? 0;
  const keepFiringFor = rule.keep_firing_for ?? 0;
  const out: SampleToWrite[] = [];
  let active = 0;
  for (const [key, a] of r.active) {
    if (!found.has(key)) {
      let keepFiring = false;
      if (a.state === "firing" && keepFiringFor > 0) {
        a.keepFiringSince ??= ts;
        keepFiring = ts - a.keepFiringSince < keepFiringFor;
      }
      if (a.state === "pending" || (a.resolvedAt !== undefined && ts - a.resolvedAt > RESOLVED_RETENTION)) r.active.delete(key);
      if (a.state !== "inactive" && !keepFiring) {
        a.state = "inactive";
        a.resolvedAt = ts;
      }
      if (!keepFiring) continue;
    } else a.keepFiringSince = undefined;
    active++;
    if (a.state === "pending" && ts - a.activeAt >= holdFor) {
      a.state = "firing";
      a.firedAt = ts;
    }
    const base = withoutEmpty({ ...rule.labels, ...a.labels, alertname: name });
    out.push({ labels: { ...base, __name__: "ALERTS", alertstate: a.state }, t, v: 1 });
    out.push({ labels: { ...base, __name__: "ALERTS_FOR_STATE" }, t, v: Math.floor(a.activeAt / 1000) });
  }
  const limit = g.group.limit ?? 0;
  if (limit > 0 && active > limit) {
    r.active.clear();
    throw new Error(`exceeded limit of ${limit} with ${active} alerts`);
  }
  return out;
}

/** evaluates every rule of the group at ts (ms) and writes the results */
/** a rule's evaluation or write failed: its health shows it, the log says why */
function markFailed(g: GroupRuntime, r: RuleRuntime, err: unknown, what: string, deps: EvalDeps): void {
  r.health = "err";
  r.lastError = message(err);
  deps.logger.warn(what, { tenant: g.tenant, namespace: g.namespace, group: g.group.name, rule: r.rule.record ?? r.rule.alert, err: r.lastError });
}

export async function evaluateGroup(g: GroupRuntime, ts: number, deps: EvalDeps): Promise<void> {
  const started = performance.now();
  const t = ts - (g.group.query_offset ?? g.group.evaluation_delay ?? 0);
  if (g.staleSeries.length > 0) {
    const stale = g.staleSeries.map((labels) => staleSample(labels, t));
    g.staleSeries = [];
    await deps.write(g.tenant, stale).catch((err: unknown) => deps.logger.debug("writing stale markers failed", { err: message(err) }));
  }
  for (const r of g.rules) {
    const ruleStarted = performance.now();
    let samples: SampleToWrite[];
    try {
      samples = r.rule.record ? await evalRecording(g, r, t, deps) : await evalAlerting(g, r, ts, t, deps);
      r.health = "ok";
      r.lastError = "";
    } catch (err) {
      markFailed(g, r, err, "evaluating rule failed", deps);
      r.lastEvaluation = ts;
      r.evaluationTime = (performance.now() - ruleStarted) / 1000;
      continue;
    }
    const current = new Map(samples.map((s) => [labelsKey(s.labels), s.labels]));
    for (const [key, labels] of r.previous) if (!current.has(key)) samples.push(staleSample(labels, t));
    r.previous = current;
    if (samples.length > 0) {
      try {
        await deps.write(g.tenant, samples);
      } catch (err) {
        markFailed(g, r, err, "writing rule results failed", deps);
      }
    }
    r.lastEvaluation = ts;
    r.evaluationTime = (performance.now() - ruleStarted) / 1000;
  }
  g.lastEvaluation = ts;
  g.evaluationTime = (performance.now() - started) / 1000;
}
