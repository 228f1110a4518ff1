// Kubernetes label and field selectors: "a=b,c!=d,e in (x,y),f notin (z),g,!h".
// Parsing errors name the offending requirement.

export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!exists" };

export class SelectorError extends Error {}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]{0,61}[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** splits on commas that are not inside parentheses */
function split(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

export function parseLabelSelector(text: string, strictValues = true): Requirement[] {
  return split(text).map((part) => {
    let m = /^(\S+?)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) {
      const [, key, op, value] = m;
      check(part, key!, strictValues ? [value!] : []);
      return { key: key!, op: op === "!=" ? "!=" : "=", value: value! };
    }
    m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (m) {
      const values = m[3]!.split(",").map((v) => v.trim()).filter((v) => v !== "");
      check(part, m[1]!, strictValues ? values : []);
      return { key: m[1]!, op: m[2] as "in" | "notin", values };
    }
    m = /^(!?)(\S+)$/.exec(part);
    if (m) {
      check(part, m[2]!, []);
      return { key: m[2]!, op: m[1] ? "!exists" : "exists" };
    }
    throw new SelectorError(`unable to parse requirement: "${part}"`);
  });
}

function check(part: string, key: string, values: string[]) {
  if (!KEY.test(key)) throw new SelectorError(`invalid label key "${key}" in "${part}"`);
  for (const v of values) if (!VALUE.test(v)) throw new SelectorError(`invalid label value "${v}" in "${part}"`);
}

export function matches(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = labels[r.key];
    switch (r.op) {
      case "=": return has && v === r.value;
      case "!=": return !has || v !== r.value;
      case "in": return has && r.values.includes(v!);
      case "notin": return !has || !r.values.includes(v!);
      case "exists": return has;
      case "!exists": return !has;
    }
  });
}
