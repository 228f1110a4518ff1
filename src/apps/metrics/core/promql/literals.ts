// PromQL literals as Prometheus reads them: Go-quoted strings, Go number
// syntax (strconv.ParseInt base 0, then ParseFloat), and Prometheus durations
// (model.ParseDuration: units y w d h m s ms, each once, largest first).

const UNIT_MS: Record<string, number> = { y: 31_536_000_000, w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/**
 * The longest duration Prometheus represents, in ms: a Go time.Duration is an
 * int64 of nanoseconds (about 292 years).
 */
export const MAX_DURATION_MS = 9_223_372_036_854;

/**
 * A Prometheus duration in ms, or undefined when the text is not one;
 * Infinity when it is one but overflows a Go time.Duration
 * (model.ParseDuration's "duration out of range").
 */
export function parseDurationMs(text: string): number | undefined {
  if (text === "0") return 0;
  const m = DURATION.exec(text);
  if (!m || text === "") return undefined;
  const units = ["y", "w", "d", "h", "m", "s", "ms"];
  let total = 0;
  for (let i = 0; i < units.length; i++) {
    const n = m[i + 1];
    if (n !== undefined) total += Number(n) * UNIT_MS[units[i]!]!;
  }
  return total > MAX_DURATION_MS ? Infinity : total;
}

/** a number as Go's ParseInt(s, 0, 64) || ParseFloat(s, 64) reads it; NaN when invalid */
export function parseGoNumber(text: string): number {
  const s = text.replace(/_/g, "");
  const lower = s.toLowerCase();
  const sign = lower.startsWith("-") ? -1 : 1;
  const body = lower.replace(/^[+-]/, "");
  if (body === "inf" || body === "infinity") return sign * Infinity;
  if (body === "nan") return NaN;
  if (/^0x[0-9a-f]+$/.test(body)) return sign * parseInt(body.slice(2), 16);
  if (/^0o[0-7]+$/.test(body)) return sign * parseInt(body.slice(2), 8);
  if (/^0b[01]+$/.test(body)) return sign * parseInt(body.slice(2), 2);
  if (/^0[0-7]+$/.test(body)) return sign * parseInt(body.slice(1), 8);
  if (/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(body)) return sign * Number(body);
  return NaN;
}

/** Go's strconv.ParseFloat for bucket bounds ("+Inf", "0.5", "1e3"); undefined when invalid */
export function parseGoFloat(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
  if (lower === "nan") return NaN;
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(lower)) return Number(text);
  if (/^[+-]?0x[0-9a-f]*\.?[0-9a-f]*p[+-]?\d+$/.test(lower)) return parseHexFloat(lower);
  return undefined;
}

function parseHexFloat(s: string): number {
  const m = /^([+-]?)0x([0-9a-f]*)\.?([0-9a-f]*)p([+-]?\d+)$/.exec(s)!;
  const mantissa = parseInt((m[2] || "0") + (m[3] || ""), 16) / 16 ** (m[3] ?? "").length;
  return (m[1] === "-" ? -1 : 1) * mantissa * 2 ** Number(m[4]);
}

/** the value of a PromQL string literal ("..." or '...' with Go escapes, or `raw`) */
export function unquote(raw: string): string {
  const quote = raw[0];
  if (quote === "`") return raw.slice(1, -1);
  const body = raw.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i]!;
    switch (e) {
      case "a": out += "\x07"; break;
      case "b": out += "\b"; break;
      case "f": out += "\f"; break;
      case "n": out += "\n"; break;
      case "r": out += "\r"; break;
      case "t": out += "\t"; break;
      case "v": out += "\v"; break;
      case "x":
        out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
        i += 2;
        break;
      case "u":
        out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 5), 16));
        i += 4;
        break;
      case "U":
        out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 9), 16));
        i += 8;
        break;
      default:
        if (e >= "0" && e <= "7") {
          out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
          i += 2;
        } else out += e;
    }
  }
  return out;
}
