// The browser paths of dashboards and folders, and the slug of a title, as
// the real product builds them (search hits, save answers, DTOs).
export function slugify(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

export const dashboardUrl = (uid: string, title: string) => `/d/${uid}/${slugify(title)}`;
export const folderUrl = (uid: string, title: string) => `/dashboards/f/${uid}/${slugify(title)}`;
