// The Go-compatible pieces behind the ruler's bodies: strconv float
// formatting, yaml.v3 scalar styles and key order, Prometheus durations and
// alert template expansion.
import { describe, expect, it } from "vitest";
import { formatPromDuration, parsePromDuration } from "../../../src/apps/metrics/core/rules/durations.ts";
import { compareYamlKeys, formatFloatE, formatFloatG, formatGoTime } from "../../../src/apps/metrics/core/rules/go-format.ts";
import { compileTemplate, templateParseError } from "../../../src/apps/metrics/core/rules/templates.ts";
import { emitYaml, nodeString, sortedMap, type YamlValue } from "../../../src/apps/metrics/core/rules/yaml-emit.ts";

describe("Go number and time formatting", () => {
  it("strconv 'e' (alert values) and %v", () => {
    expect([1, 42, 0.5, 1e6, 1234567, 1e-7, 0, -3, NaN, Infinity, -Infinity].map(formatFloatE)).toEqual([
      "1e+00", "4.2e+01", "5e-01", "1e+06", "1.234567e+06", "1e-07", "0e+00", "-3e+00", "NaN", "+Inf", "-Inf",
    ]);
    expect([1, 42, 0.5, 1e6, 123456, 1234567, 1e-5, 0.0001, 12345.678].map((v) => formatFloatG(v))).toEqual([
      "1", "42", "0.5", "1e+06", "123456", "1.234567e+06", "1e-05", "0.0001", "12345.678",
    ]);
    expect([1.5, 1000, 12345, 0.0001234, 999.95].map((v) => formatFloatG(v, 4))).toEqual(["1.5", "1000", "1.234e+04", "0.0001234", "1000"]);
  });

  it("time.Time JSON in UTC, Go's zero time when never set", () => {
    expect(formatGoTime(undefined)).toBe("0001-01-01T00:00:00Z");
    expect(formatGoTime(Date.UTC(2024, 0, 2, 3, 4, 5))).toBe("2024-01-02T03:04:05Z");
    expect(formatGoTime(Date.UTC(2024, 0, 2, 3, 4, 5, 120))).toBe("2024-01-02T03:04:05.12Z");
  });

  it("Prometheus durations parse strictly and print with the largest units", () => {
    expect(["0", "90s", "1h30m", "1w", "500ms", "1y"].map(parsePromDuration)).toEqual([0, 90_000, 5_400_000, 604_800_000, 500, 31_536_000_000]);
    for (const bad of ["", "1.5m", "30m1h", "-1m", "5 m"]) expect(() => parsePromDuration(bad)).toThrow();
    expect([0, 90_000, 86_400_000 * 14, 86_400_000 * 90, 1500].map(formatPromDuration)).toEqual(["0s", "1m30s", "2w", "90d", "1s500ms"]);
  });
});

describe("yaml.v3 output", () => {
  it("orders map keys as yaml.v3 does (numbers inside names compare as numbers)", () => {
    expect(["ns10", "ns2", "b", "a", "ns1", "A"].sort(compareYamlKeys)).toEqual(["A", "a", "b", "ns1", "ns2", "ns10"]);
  });

  it("chooses plain, single-quoted, double-quoted and literal styles", () => {
    const doc = new Map<string, YamlValue>([
      ["plain", "sum(rate(x[5m])) > 0"],
      ["number", "123"],
      ["bool", "true"],
      ["old bool", "on"],
      ["node old bool", nodeString("on")],
      ["empty", ""],
      ["template", "{{ $value }}"],
      ["colon", "a: b"],
      ["trailing colon", "a:"],
      ["leading space", " a"],
      ["tab", "a\tb"],
      ["multi", "a\nb"],
      ["quote", "it's"],
      ["labels", sortedMap({ z: "1", a: "x" })],
    ]);
    expect(emitYaml(doc)).toBe(
      [
        "plain: sum(rate(x[5m])) > 0",
        'number: "123"',
        'bool: "true"',
        'old bool: "on"',
        "node old bool: on",
        'empty: ""',
        "template: '{{ $value }}'",
        "colon: 'a: b'",
        "trailing colon: 'a:'",
        "leading space: ' a'",
        'tab: "a\\tb"',
        "multi: |-",
        "    a",
        "    b",
        "quote: it's",
        "labels:",
        "    a: x",
        '    z: "1"',
        "",
      ].join("\n"),
    );
    expect(emitYaml(new Map())).toBe("{}\n");
  });
});

describe("alert templates", () => {
  const expand = (text: string, value = 1234.5, labels: Record<string, string> = { instance: "host:9100", job: "node" }) =>
    compileTemplate(text, "TestAlert").expand({ labels, value });

  it("variables, fields and printing", () => {
    expect(expand("{{ $labels.instance }} / {{ .Labels.job }} / {{ $value }} / {{ .Value }} / [{{ $labels.missing }}]")).toBe("host:9100 / node / 1234.5 / 1234.5 / []");
    expect(expand("{{ $labels }}")).toBe("map[instance:host:9100 job:node]");
    expect(expand("{{- $labels.job -}}  \n  !")).toBe("node!");
    expect(expand("{{/* a comment */}}ok")).toBe("ok");
    expect(expand('{{ $x := "v" }}{{ $x }}')).toBe("v");
  });

  it("Prometheus's functions", () => {
    expect(expand("{{ humanize $value }}")).toBe("1.234k");
    expect(expand("{{ humanize 0.00123 }}")).toBe("1.23m");
    expect(expand("{{ humanize1024 2048.0 }}")).toBe("2ki");
    expect(expand("{{ humanizePercentage 0.256 }}")).toBe("25.6%");
    expect(expand("{{ humanizeDuration 3725.0 }}")).toBe("1h 2m 5s");
    expect(expand("{{ humanizeDuration 1.5 }}")).toBe("1.5s");
    expect(expand("{{ humanizeTimestamp 1704067200 }}")).toBe("2024-01-01 00:00:00 +0000 UTC");
    expect(expand('{{ printf "%.2f|%5.1f|%d|%s|%q|%v" $value 3.14159 42 "s" "q" true }}')).toBe('1234.50|  3.1|42|s|"q"|true');
    expect(expand('{{ $labels.instance | stripPort | toUpper }} {{ title "hello world" }} {{ reReplaceAll "(.*):.*" "$1" $labels.instance }}')).toBe("HOST Hello World host");
    expect(expand('{{ if gt $value 1000.0 }}high{{ else if gt $value 10.0 }}mid{{ else }}low{{ end }}')).toBe("high");
    expect(expand('{{ if eq $labels.job "node" }}node{{ end }}{{ if not (eq $labels.job "x") }}!{{ end }}')).toBe("node!");
  });

  it("expansion errors give Prometheus's <error expanding template: ...> text", () => {
    expect(expand("{{ gt $value 1 }}")).toMatch(/^<error expanding template: error executing template __alert_TestAlert: .*incompatible types for comparison>$/);
    expect(expand('{{ query "up" }}')).toMatch(/^<error expanding template: .*query.*>$/);
  });

  it("parse errors as Go reports them", () => {
    expect(templateParseError("{{ nosuch }}", "A")).toBe('template: __alert_A:1: function "nosuch" not defined');
    expect(templateParseError("ok\n{{ $labels.x", "A")).toBe("template: __alert_A:2: unclosed action");
    expect(templateParseError("{{ $undefined }}", "A")).toBe('template: __alert_A:1: undefined variable "$undefined"');
    expect(templateParseError("{{ end }}", "A")).toBe("template: __alert_A:1: unexpected {{end}}");
    expect(templateParseError("{{ if true }}x", "A")).toBe("template: __alert_A:1: unexpected EOF");
    expect(templateParseError("{{ range $labels }}{{ . }}{{ end }} {{ query \"up\" | first | value }}", "A")).toBeUndefined();
  });
});
