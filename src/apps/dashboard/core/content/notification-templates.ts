// Notification templates (/api/v1/provisioning/templates): Go templates kept
// per organization. As in the real product, content without a
// `{{ define }}` is wrapped in one named after the template, and content
// whose actions do not close or whose blocks do not balance is refused.
import type { Sql } from "../../../../db/sql.ts";
import { requireMaxLength } from "../identity/index.ts";
import { ALERTING_NAME_MAX, alertingError, fingerprint, requireRelaxedProvenance, requireVersion, type Provenance } from "./alerting-common.ts";

export interface NotificationTemplate {
  name: string;
  template: string;
  version: string;
  provenance: Provenance;
}

/** 400 alerting.notifications.templates.invalidFormat, the problem named */
function invalid(detail: string) {
  return alertingError(400, "alerting.notifications.templates.invalidFormat",
    `Template is in invalid format. Correct the payload and try again. ${detail}`, { Error: detail });
}

const OPENS_BLOCK = /^-?\s*(define|if|range|with|block)\b/;
const ENDS_BLOCK = /^-?\s*end\s*-?$/;

/** what Go's text/template parser would refuse first, roughly: an action left open, a block without its end, an end without its block */
function parseProblem(name: string, text: string): string | undefined {
  let depth = 0;
  let at = 0;
  // line numbers counted as the scan goes: one pass over the text, whatever the number of actions
  let line = 1;
  let counted = 0;
  for (;;) {
    const open = text.indexOf("{{", at);
    if (open < 0) break;
    const close = text.indexOf("}}", open + 2);
    for (; counted < open; counted++) if (text.charCodeAt(counted) === 10) line++;
    if (close < 0) return `template: ${name}:${line}: unclosed action`;
    const action = text.slice(open + 2, close).trim();
    if (OPENS_BLOCK.test(action)) depth++;
    else if (ENDS_BLOCK.test(action) && --depth < 0) return `template: ${name}:${line}: unexpected {{end}}`;
    at = close + 2;
  }
  return depth > 0 ? `template: ${name}: unexpected EOF` : undefined;
}

/** the content as the real product stores it: trimmed, in a define block of the template's name when it has none */
function readTemplate(name: string, template: string | undefined): string {
  if (!template) throw invalid("template must have content");
  let content = template.trim();
  if (!/\{\{\s*define/.test(content)) {
    content = `{{ define "${name}" }}\n${content.split("\n").map((l) => `  ${l}`).join("\n")}\n{{ end }}`;
  }
  const problem = parseProblem(name, content);
  if (problem) throw invalid(`invalid template: ${problem}`);
  return content;
}

type Row = { name: string; template: string; provenance: Provenance };
const shape = async (row: Row): Promise<NotificationTemplate> => ({ ...row, version: await fingerprint(row.template) });

export interface TemplateStore {
  list(orgId: number): Promise<NotificationTemplate[]>;
  get(orgId: number, name: string): Promise<NotificationTemplate>;
  /** PUT /:name: creates or replaces */
  put(orgId: number, name: string, input: { template?: string | undefined; version?: string | undefined }, provenance: Provenance): Promise<NotificationTemplate>;
  delete(orgId: number, name: string, provenance: Provenance, version: string | undefined): Promise<void>;
}

export function createTemplateStore(pg: Sql): TemplateStore {
  const select = "select name, template, provenance from alerting_templates where org_id = $1";
  return {
    async list(orgId) {
      return Promise.all((await pg.query<Row>(`${select} order by name`, [orgId])).rows.map(shape));
    },
    async get(orgId, name) {
      const row = (await pg.query<Row>(`${select} and name = $2`, [orgId, name])).rows[0];
      if (!row) throw alertingError(404, "alerting.notifications.templates.notFound");
      return shape(row);
    },
    async put(orgId, name, input, provenance) {
      requireMaxLength("name", name, ALERTING_NAME_MAX);
      const template = readTemplate(name, input.template);
      return pg.transaction(async (tx) => {
        const existing = (await tx.query<Row>(`${select} and name = $2`, [orgId, name])).rows[0];
        if (existing) {
          requireRelaxedProvenance(existing.provenance, provenance);
          requireVersion(input.version, (await shape(existing)).version);
        }
        await tx.query(
          `insert into alerting_templates (org_id, name, template, provenance) values ($1, $2, $3, $4)
           on conflict (org_id, name) do update set template = excluded.template, provenance = excluded.provenance, updated_at = now()`,
          [orgId, name, template, provenance],
        );
        return shape({ name, template, provenance });
      });
    },
    async delete(orgId, name, provenance, version) {
      await pg.transaction(async (tx) => {
        const existing = (await tx.query<Row>(`${select} and name = $2`, [orgId, name])).rows[0];
        if (!existing) return;
        requireRelaxedProvenance(existing.provenance, provenance);
        requireVersion(version, (await shape(existing)).version);
        await tx.query("delete from alerting_templates where org_id = $1 and name = $2", [orgId, name]);
      });
    },
  };
}
