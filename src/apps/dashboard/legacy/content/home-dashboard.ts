// The built-in home dashboard GET /api/dashboards/home answers with when no
// preference names one: starred and recent dashboards, as the real
// product's own home shows them.
export const HOME_DASHBOARD: Readonly<Record<string, unknown>> = Object.freeze({
  annotations: { list: [] },
  editable: false,
  graphTooltip: 0,
  links: [],
  panels: [
    {
      id: 1,
      type: "dashlist",
      title: "Starred dashboards",
      gridPos: { h: 12, w: 12, x: 0, y: 0 },
      options: { showStarred: true, showRecentlyViewed: false, showSearch: false, maxItems: 30 },
    },
    {
      id: 2,
      type: "dashlist",
      title: "Dashboards",
      gridPos: { h: 12, w: 12, x: 12, y: 0 },
      options: { showStarred: false, showRecentlyViewed: false, showSearch: true, maxItems: 30 },
    },
  ],
  schemaVersion: 39,
  tags: [],
  templating: { list: [] },
  time: { from: "now-6h", to: "now" },
  timepicker: {},
  timezone: "browser",
  title: "Home",
  version: 0,
});
