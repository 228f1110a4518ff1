// How Go prints the values the ruler shows, so bodies match Mimir's byte for
// byte: strconv.FormatFloat ('e' and 'g'), fmt's %q, time.Time's JSON
// (RFC 3339 with trimmed nanoseconds) and yaml.v3's order of map keys.

/**
 * JavaScript rounds an exact tie up, Go to even (both on the exact value of
 * the double): the tie, if any, shows in `long`, the same number printed with
 * 30 more digits; then the kept digits must not be rounded up when even.
 */
function tieToEven(long: string, keep: number): string | undefined {
  const digits = long.replace(/[-.]/g, "");
  const rest = digits.slice(keep);
  if (!/^50*$/.test(rest)) return undefined;
  return Number(digits[keep - 1] ?? "0") % 2 === 0 ? digits.slice(0, keep) : undefined;
}

/** the shortest (prec < 0) or prec-significant decimal digits of a finite v > 0, trailing zeros cut */
function digitsOf(v: number, prec: number): { digits: string; exp: number } {
  let text = prec < 0 ? v.toExponential() : v.toExponential(Math.min(Math.max(prec - 1, 0), 100));
  if (prec > 0 && prec + 30 <= 100) {
    const long = v.toExponential(prec - 1 + 30);
    const even = tieToEven(long.split("e")[0]!, prec);
    if (even) text = `${even}e${long.split("e")[1]}`;
  }
  const [mantissa = "0", exponent = "0"] = text.split("e");
  const digits = mantissa.replace(".", "").replace(/0+$/, "") || "0";
  return { digits, exp: Number(exponent) };
}

function special(v: number): string | undefined {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return undefined;
}

function expForm(digits: string, exp: number): string {
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const abs = Math.abs(exp);
  return `${mantissa}e${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
}

function fixedForm(digits: string, dp: number): string {
  const decimals = Math.max(digits.length - dp, 0);
  const at = (i: number) => (i >= 0 && i < digits.length ? digits[i]! : "0");
  let int = "";
  if (dp <= 0) int = "0";
  else for (let i = 0; i < dp; i++) int += at(i);
  let frac = "";
  for (let i = dp; i < dp + decimals; i++) frac += at(i);
  return frac ? `${int}.${frac}` : int;
}

/** strconv.FormatFloat(v, 'e', -1, 64): "1e+00", "4.2e+01" */
export function formatFloatE(v: number): string {
  const s = special(v);
  if (s) return s;
  const sign = v < 0 || Object.is(v, -0) ? "-" : "";
  if (v === 0) return `${sign}0e+00`;
  const { digits, exp } = digitsOf(Math.abs(v), -1);
  return sign + expForm(digits, exp);
}

/** strconv.FormatFloat(v, 'g', prec, 64); prec < 0 is fmt's %v (shortest) */
export function formatFloatG(v: number, prec = -1): string {
  const s = special(v);
  if (s) return s;
  const sign = v < 0 || Object.is(v, -0) ? "-" : "";
  if (v === 0) return `${sign}0`;
  const shortest = prec < 0;
  const p = shortest ? -1 : Math.max(prec, 1);
  const { digits, exp } = digitsOf(Math.abs(v), p);
  const nd = digits.length;
  const dp = exp + 1;
  let eprec = shortest ? 6 : p;
  if (!shortest && eprec > nd && nd >= dp) eprec = nd;
  return sign + (exp < -4 || exp >= eprec ? expForm(digits, exp) : fixedForm(digits, dp));
}

/** strconv.FormatFloat(v, 'f', prec, 64) */
export function formatFloatF(v: number, prec: number): string {
  const s = special(v);
  if (s) return s;
  const p = Math.min(Math.max(prec, 0), 100);
  if (Math.abs(v) >= 1e21) return v.toFixed(p);
  if (p + 30 <= 100) {
    const long = Math.abs(v).toFixed(p + 30);
    const intDigits = long.indexOf(".");
    const even = tieToEven(long, intDigits + p);
    if (even !== undefined) {
      const int = even.slice(0, intDigits).replace(/^0+(?=\d)/, "");
      const frac = even.slice(intDigits);
      return `${v < 0 ? "-" : ""}${int}${p > 0 ? `.${frac}` : ""}`;
    }
  }
  return v.toFixed(p);
}

/** strconv.Quote / %q */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if ((cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** a time.Time as encoding/json writes it, in UTC; undefined is Go's zero time */
export function formatGoTime(ms: number | undefined): string {
  if (ms === undefined) return "0001-01-01T00:00:00Z";
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : "Z"));
}

const isLetter = (ch: string) => /\p{L}/u.test(ch);
const isDigit = (ch: string) => /\p{Nd}/u.test(ch);

/** yaml.v3's keyList.Less: letters before other runes, digit runs compared as numbers */
function keyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i]!;
    const y = br[i]!;
    if (x === y) {
      digits = isDigit(x);
      continue;
    }
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return x.codePointAt(0)! < y.codePointAt(0)!;
    if (al || bl) return digits ? al : bl;
    let an = 0;
    let bn = 0;
    if (x === "0" || y === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + (ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + (br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x.codePointAt(0)! < y.codePointAt(0)!;
  }
  return ar.length < br.length;
}

/** a comparator sorting map keys as yaml.v3 marshals them */
export function compareYamlKeys(a: string, b: string): number {
  if (keyLess(a, b)) return -1;
  if (keyLess(b, a)) return 1;
  return 0;
}
