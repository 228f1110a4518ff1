// What queries derive from a series' label set again and again (its map key,
// its labels without the name, its JSON, its group key), kept with the label
// sets that never change: the head's series' and those PromQL derives from
// them. The set is frozen, so what is kept stays true; the memo itself is
// made the first time a query asks (a weak map from the set), so a million
// series never queried cost no memo.
import type { Labels } from "./types.ts";

export interface LabelsMemo {
  key?: string;
  noName?: Labels;
  json?: string;
  /** the key of its group under one grouping (the last asked for) */
  groupBy?: string;
  groupKey?: string;
}

const memos = new WeakMap<Labels, LabelsMemo>();

/** marks a label set as never changing again (freezing it): it may have a memo */
export function immutableLabels(labels: Labels): Labels {
  return Object.freeze(labels);
}

/** the memo of an immutable label set (made now if it has none); undefined for one that may still change */
export function memoOf(labels: Labels): LabelsMemo | undefined {
  let m = memos.get(labels);
  if (m === undefined) {
    if (!Object.isFrozen(labels)) return undefined;
    memos.set(labels, (m = {}));
  }
  return m;
}
