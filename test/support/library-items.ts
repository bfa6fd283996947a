// Every item of a library with its files, read straight from the API (not through the CLI, whose
// output is not what these tests are about): the ground truth for "exactly once" checks.

export interface LibraryItem {
  id: string;
  type: string;
  title: string;
  /** File names in sortOrder. */
  files: string[];
}

async function get<T>(url: string, key: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export async function libraryItems(baseUrl: string, key: string): Promise<LibraryItem[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await get<{ items: Array<{ id: string }>; hasMore: boolean }>(
      `${baseUrl}/api/v1/content?limit=100&offset=${offset}`,
      key,
    );
    ids.push(...page.items.map((i) => i.id));
    if (!page.hasMore) break;
  }
  const out: LibraryItem[] = [];
  for (const id of ids) {
    const { item, files } = await get<{
      item: { id: string; type: string; title: string };
      files: Array<{ fileName?: string | null; fileKey: string; sortOrder: number }>;
    }>(`${baseUrl}/api/v1/content/${id}`, key);
    const names = [...files]
      .sort((a, b) => a.sortOrder - b.sortOrder)
      .map((f) => f.fileName ?? f.fileKey.split('/').pop()!);
    out.push({ id: item.id, type: item.type, title: item.title, files: names });
  }
  return out.sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
}
