// What queries derive from a series' label set again and again (its map key,
// its labels without the name, its JSON, its group key), kept with the label
// sets that never change: the head's series' and those PromQL derives from
// them. The memo hangs off the label set itself under a symbol, not
// enumerable, so Object.keys, for-in, spreading and JSON never see it; the
// set is frozen, so what is kept stays true.
import type { Labels } from "./types.ts";

export interface LabelsMemo {
  key?: string;
  noName?: Labels;
  json?: string;
  /** the key of its group under one grouping (the last asked for) */
  groupBy?: string;
  groupKey?: string;
}

const MEMO: unique symbol = Symbol("labels memo");

/** marks a label set as never changing again (freezing it) and gives it a memo */
export function immutableLabels(labels: Labels): Labels {
  if (!Object.isFrozen(labels)) {
    Object.defineProperty(labels, MEMO, { value: {} satisfies LabelsMemo, enumerable: false });
    Object.freeze(labels);
  }
  return labels;
}

/** the memo of an immutable label set; undefined for one that may still change */
export function memoOf(labels: Labels): LabelsMemo | undefined {
  return (labels as { [MEMO]?: LabelsMemo })[MEMO];
}
