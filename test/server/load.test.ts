// Load: 50 uploads (presign → PUT → complete of real media) and 10 listers at once against one
// server on loopback. Nothing may fail, every completed upload is listed exactly once with its
// object on disk, and the database passes its integrity check afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type Listed,
  fixtureMedia,
  http,
  integrityCheck,
  listAll,
  uploadFlow,
  wideAgent,
} from '../support/http.js';
import { type TestServer, startTestServer } from '../support/server.js';

const UPLOADS = 50;
const LISTERS = 10;
const BRANDS = ['alpha', 'beta'] as const;

let server: TestServer;
const agent = wideAgent();

beforeAll(async () => {
  server = await startTestServer({ clock: 'real' });
});

afterAll(async () => {
  await agent.close();
  await server?.dispose();
});

describe('load: 50 concurrent uploads and 10 concurrent listers', () => {
  it(
    'fails no request, lists every upload once with its object, keeps the database intact',
    { timeout: 60_000 },
    async () => {
      const keys = {
        alpha: await server.key('alpha'),
        beta: await server.key('beta'),
      };
      const { clip, photo } = fixtureMedia();
      const failures: string[] = [];
      const check = (what: string, a: Answer | undefined) => {
        if (!a || a.status !== 200)
          failures.push(`${what}: ${a ? `${a.status} ${a.text.slice(0, 200)}` : 'never sent'}`);
      };

      let uploading = true;
      let pagesSeen = 0;
      // Listers read while uploads land: every page must answer 200, hold no id twice, and show
      // only the lister's own brand (titles carry the brand name).
      const listers = Array.from({ length: LISTERS }, async (_, i) => {
        const brand = BRANDS[i % BRANDS.length]!;
        while (uploading) {
          const a = await http('GET', `${server.url}/api/v1/content?limit=20`, { key: keys[brand], dispatcher: agent });
          check(`lister ${i}`, a);
          const items = (a.json as { items?: Listed[] } | undefined)?.items ?? [];
          if (new Set(items.map((x) => x.id)).size !== items.length)
            failures.push(`lister ${i}: a page listed an item twice`);
          const foreign = items.filter((x) => !x.title.startsWith(`${brand}-`));
          if (foreign.length > 0) failures.push(`lister ${i} (${brand}) saw ${foreign.map((x) => x.title).join(', ')}`);
          pagesSeen++;
        }
      });

      const uploads = await Promise.all(
        Array.from({ length: UPLOADS }, async (_, i) => {
          const brand = BRANDS[i % BRANDS.length]!;
          const media = i % 5 === 0 ? photo : clip;
          const name = `${brand}-${i}.${media === photo ? 'jpg' : 'mp4'}`;
          const r = await uploadFlow(server.url, keys[brand], media, name, agent);
          check(`presign ${name}`, r.presign);
          check(`PUT ${name}`, r.put);
          check(`complete ${name}`, r.complete);
          return {
            brand,
            name,
            media,
            storageKey: r.storageKey,
            itemId: (r.complete?.json as { contentItemId?: string } | undefined)?.contentItemId,
          };
        }),
      );
      uploading = false;
      await Promise.all(listers);

      expect(failures).toEqual([]);
      expect(pagesSeen).toBeGreaterThanOrEqual(LISTERS);
      for (const brand of BRANDS) {
        const mine = uploads.filter((u) => u.brand === brand);
        const listed = await listAll(server.url, keys[brand], agent);
        // Exactly once each: as many listed as completed, no id twice, and the same ids.
        expect(listed).toHaveLength(mine.length);
        expect(new Set(listed.map((x) => x.id)).size).toBe(listed.length);
        expect(new Set(listed.map((x) => x.id))).toEqual(new Set(mine.map((u) => u.itemId)));
      }
      for (const u of uploads) {
        expect(await server.storage.size(u.storageKey!), `object of ${u.name}`).toBe(u.media.bytes.length);
      }
      expect(integrityCheck(server.dataDir)).toBe('ok');
      expect(server.internal).toEqual([]);
    },
  );
});
