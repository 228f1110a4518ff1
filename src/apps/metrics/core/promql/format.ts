// Numbers written as Prometheus writes them. Sample values in API responses use
// jsonutil's marshalFloat: strconv.FormatFloat 'f' (shortest), switching to 'e'
// below 1e-6 and from 1e21, Go spelling "+Inf", "-Inf", "NaN", "1e+21", "1e-07".

/** a sample value as the Prometheus HTTP API prints it */
export function formatSampleValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const abs = Math.abs(v);
  if (abs < 1e-6 || abs >= 1e21) return goExponent(v.toExponential());
  return String(v);
}

/** Go writes at least two exponent digits */
function goExponent(s: string): string {
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** Go's strconv.FormatFloat(v, 'f', -1, 64): shortest digits, never an exponent */
export function formatFloatF(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const s = String(v);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, frac = "", exp] = m;
  const digits = lead! + frac;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** a timestamp in ms as the API's float seconds */
export function toSeconds(ms: number): number {
  return ms / 1000;
}
