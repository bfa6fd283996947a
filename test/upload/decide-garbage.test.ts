// `decide` makes little garbage per file (issue 41): for 100,000 files it runs as one long
// synchronous stretch, and whatever it allocates per file is promoted while it runs and sets a
// bulk upload's peak RSS. Most files are fine, so the records and shown paths its checks need
// only when something is wrong must not be made for them. Measured in-process, not timed: V8's
// sampling heap profiler, counting what was collected too, adds up every byte `decide`
// allocates (statistically, one sample per SAMPLE bytes) for a scanned tree of N images, 10
// per folder, as bench/scale.ts lays them out. With a record and a shown path made for every
// file's checks it allocated ~2,100 bytes a file; made only for a file that breaks a rule, ~250.
import { link, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/upload/plan/decide.js';
import { scan, type Scanned } from '../../src/upload/plan/scan.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/image/photo.jpg');
const PER_FOLDER = 10;
const N = 10_000;
const SAMPLE = 256;
/** Bytes `decide` may allocate per file: well above its ~250, well below the ~2,100 with a record per file. */
const BOUND = 700;

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

function total(node: ProfileNode): number {
  return node.children.reduce((sum, child) => sum + total(child), node.selfSize);
}

/** Bytes `run` allocates, collected or not, as the sampling heap profiler estimates them. */
async function allocated(run: () => unknown): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLE,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    run();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
    return total(profile.head);
  } finally {
    session.disconnect();
  }
}

async function tree(dir: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const folder = join(dir, `album-${String(Math.floor(i / PER_FOLDER)).padStart(5, '0')}`);
    if (i % PER_FOLDER === 0) await mkdir(folder, { recursive: true });
    await link(FIXTURE, join(folder, `photo-${i % PER_FOLDER}.jpg`));
  }
}

describe('decide on a bulk upload', () => {
  let root: string;
  let scanned: Scanned;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'cl-decide-garbage-'));
    await tree(join(root, 'tree'), N);
    scanned = await scan([join(root, 'tree')], {}, root);
  }, 120_000);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it(`allocates at most ${BOUND} bytes per file (${N} images in ${N / PER_FOLDER} folders)`, async () => {
    // Once first, so that what planning compiles and loads for good is not counted.
    decide(scanned, [join(root, 'tree')], {});
    const bytes = await allocated(() => {
      const plan = decide(scanned, [join(root, 'tree')], {});
      expect(plan.problems).toEqual([]);
      expect(plan.items).toHaveLength(N / PER_FOLDER);
    });
    const perFile = bytes / N;
    // Something was measured: the plan itself (its items and their metadata) is allocated too.
    expect(perFile).toBeGreaterThan(10);
    expect(perFile).toBeLessThan(BOUND);
  }, 120_000);
});
