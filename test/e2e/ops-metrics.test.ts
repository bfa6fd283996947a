// GET /metrics of `contentlib serve`: off unless asked for; on the API port with --metrics or on
// a port of its own with --metrics-port; its counters move with an upload.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Served, serveWithKey } from '../support/ops.js';
import { FIXTURES } from '../support/paths.js';

const VIDEO = join(FIXTURES, 'demo/intro.mp4');

let s: Served | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

async function get(url: string) {
  const res = await request(url);
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
}

/** The value of one sample (`name{labels}`) in Prometheus text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('metrics', () => {
  it('are off by default: /metrics is a 404 like any unknown path', async () => {
    s = await serveWithKey();
    expect((await get(`${s.server.url}/metrics`)).status).toBe(404);
  });

  it('--metrics: counters move after an upload (requests, bytes stored, completes, refusals, items)', async () => {
    s = await serveWithKey(['--metrics']);
    const before = await get(`${s.server.url}/metrics`);
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(before.text, 'contentlib_items{type="longform"}')).toBe(0);
    expect(sample(before.text, 'contentlib_storage_put_bytes_total')).toBe(0);
    expect(before.text).toContain('process_resident_memory_bytes');
    expect(sample(before.text, 'contentlib_db_pool_connections{state="total"}')).toBe(1);
    expect(sample(before.text, 'contentlib_sweeper_runs_total{outcome="ok"}')).toBe(1);

    const up = await s.cli(['upload', VIDEO, '--type', 'longform', '--json']);
    expect(up.exitCode).toBe(0);
    // A presign the server refuses (the CLI checks first, so ask by hand).
    const presign = await request(`${s.server.url}/api/v1/upload/presign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'a.gif', contentType: 'image/gif', fileSize: 10 }),
    });
    await presign.body.dump();
    expect(presign.statusCode).toBe(415);

    const after = (await get(`${s.server.url}/metrics`)).text;
    expect(sample(after, 'contentlib_items{type="longform"}')).toBe(1);
    expect(sample(after, 'contentlib_uploads_completed_total{type="longform"}')).toBe(1);
    expect(sample(after, 'contentlib_storage_put_bytes_total')).toBe(statSync(VIDEO).size);
    expect(sample(after, 'contentlib_uploads_refused_total{stage="presign",reason="unsupported_media_type"}')).toBe(1);
    expect(
      sample(after, 'contentlib_http_requests_total{method="POST",route="/api/v1/upload/complete",status="200"}'),
    ).toBe(1);
    expect(
      sample(after, 'contentlib_http_request_duration_seconds_count{method="PUT",route="/storage/*",status="200"}'),
    ).toBe(1);
    // Scrapes and probes are not counted as traffic.
    expect(after).not.toMatch(/route="\/metrics"/);
  });

  it('--metrics-port: served apart from the API, which has no /metrics', async () => {
    s = await serveWithKey(['--metrics-port', '0']);
    await expect.poll(() => s!.logs().some((l) => l.msg === 'metrics served')).toBe(true);
    const url = String(s.logs().find((l) => l.msg === 'metrics served')!.metricsUrl);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(url).port).not.toBe(String(s.server.port));
    const scraped = await get(url);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('contentlib_http_requests_total');
    expect((await get(`${s.server.url}/metrics`)).status).toBe(404);
    expect((await get(new URL('/other', url).href)).status).toBe(404);
  });
});
