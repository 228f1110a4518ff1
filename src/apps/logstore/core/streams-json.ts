// The JSON text of log streams, as query answers and tail messages hold them
// (Loki's marshal.encodeStreams): the very text JSON.stringify gives, made
// from the lines' remembered JSON.
import { boundedMemo } from "../../../lib/bounded-memo.ts";
import type { StreamResult } from "./logql/evaluate.ts";

/** lines longer than this are not remembered (memory stays bounded: 4096 lines of 1 KiB) */
const MEMO_MAX_LINE = 1024;
/** a log line's JSON text, remembered: the newest lines are answered by many queries in a row */
const lineJson = boundedMemo((line) => JSON.stringify(line), 4096);

/** `[{"stream":{…},"values":[["<ns>","<line>"(,{categories})]]},…]`: escaping the same lines again for every query was most of a small log query's cost */
export function streamsJson(result: readonly StreamResult[]): string {
  let out = "[";
  for (let k = 0; k < result.length; k++) {
    const s = result[k]!;
    out += `${k ? "," : ""}{"stream":${JSON.stringify(s.stream)},"values":[`;
    const values = s.values;
    for (let j = 0; j < values.length; j++) {
      const [ts, line, categories] = values[j]!;
      // a timestamp's text is decimal digits (tsText): nothing in it needs escaping
      out += `${j ? ",[\"" : "[\""}${ts}",${line.length <= MEMO_MAX_LINE ? lineJson(line) : JSON.stringify(line)}${categories ? `,${JSON.stringify(categories)}` : ""}]`;
    }
    out += "]}";
  }
  return `${out}]`;
}
