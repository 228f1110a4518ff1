// The three levels of a managed data source permission and the actions each
// grants on the data source (the real product's): each implies read access.
export const DATASOURCE_LEVELS = ["Query", "Edit", "Admin"] as const;
export type DataSourcePermissionLevel = (typeof DATASOURCE_LEVELS)[number];

const query = ["datasources:query", "datasources:read"];
const edit = [...query, "datasources:write", "datasources:delete"];
const admin = [...edit, "datasources.permissions:read", "datasources.permissions:write"];

export const DATASOURCE_LEVEL_ACTIONS: Record<DataSourcePermissionLevel, readonly string[]> = { Query: query, Edit: edit, Admin: admin };
