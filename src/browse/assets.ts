// The pages' stylesheet, script and icon: files of the package (no CDN, so the pages work
// offline), read once when browse starts. From source (tests) they are src/browse/assets/; in
// the built CLI, whose code is all in dist/cli/main.cjs, scripts/build.js copies them to
// dist/browse-assets/.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  'browse.css': 'text/css; charset=utf-8',
  'browse.js': 'text/javascript; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

function assetFolder(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('../browse-assets/', import.meta.url)];
  const found = candidates.find((u) => existsSync(new URL('browse.css', u)));
  if (!found)
    throw new Error(
      `the browse pages' assets are missing (looked in ${candidates.map((u) => fileURLToPath(u)).join(' and ')}); reinstall contentlib`,
    );
  return fileURLToPath(found);
}

export async function loadAssets(): Promise<Map<string, Asset>> {
  const folder = assetFolder();
  const out = new Map<string, Asset>();
  for (const [name, type] of Object.entries(TYPES)) out.set(name, { type, body: await readFile(`${folder}${name}`) });
  return out;
}
