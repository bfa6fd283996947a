// Issue 41's targets in one table: the figure the issue was filed with ("before", measured on
// the build that preceded it, as the issue states it), the goal, and this run's figure beside
// the reference measured in the same run. Only the scenarios this run measured get a row.
import type { LargeResult } from './large.js';
import type { MultipartResult } from './multipart.js';
import type { ScaleResult } from './scale.js';
import { type DownloadResult, downloadReference } from './takeout.js';
import { fixed } from './lib/stats.js';

export interface Issue41Inputs {
  large?: LargeResult;
  scale?: ScaleResult;
  download?: DownloadResult;
  multipart?: MultipartResult;
}

interface Row {
  what: string;
  before: string;
  goal: string;
  now: string;
  met: boolean;
}

function largeRows(l: LargeResult): Row[] {
  // The reference does the same work one after the other: send the bytes, then hash them.
  const wall = l.clWallMs / (l.curlWallMs + l.opensslWallMs);
  const cpu = l.clCpuMs / (l.curlCpuMs + l.opensslCpuMs);
  return [
    {
      what: 'checksummed 1 GiB upload: wall vs `curl -T` + `openssl dgst -sha256`',
      before: '0.97×',
      goal: '≤ 0.9×',
      now: `${fixed(l.clWallMs, 0)} / (${fixed(l.curlWallMs, 0)} + ${fixed(l.opensslWallMs, 0)}) ms = ${fixed(wall, 2)}×`,
      met: wall <= 0.9,
    },
    {
      what: 'checksummed 1 GiB upload: CLI CPU vs `curl -T` + `openssl dgst -sha256`',
      before: '1.35×',
      goal: '≤ 1.2×',
      now: `${fixed(l.clCpuMs, 0)} / (${fixed(l.curlCpuMs, 0)} + ${fixed(l.opensslCpuMs, 0)}) ms = ${fixed(cpu, 2)}×`,
      met: cpu <= 1.2,
    },
  ];
}

function scaleRows(s: ScaleResult): Row[] {
  const growth = (r: { peakRssMiB: number }) => r.peakRssMiB / s.small.peakRssMiB - 1;
  const rows: Row[] = [
    {
      what: `${s.large.files} images in ${s.large.files / 10} folders: peak RSS`,
      before: '304–331 MB (10,000 images)',
      goal: '≤ 120 MB',
      now: `${fixed(s.large.peakRssMiB, 0)} MiB`,
      met: s.large.peakRssMiB * 1.048576 <= 120,
    },
    {
      what: `${s.large.files} images: peak RSS above the ${s.small.files}-image run's`,
      before: '+260 % (10,000 vs 500 images)',
      goal: '≤ 10 %',
      now: `+${fixed(growth(s.large) * 100, 1)} % (${fixed(s.small.peakRssMiB, 0)} MiB)`,
      met: growth(s.large) <= 0.1,
    },
  ];
  if (s.huge)
    rows.push({
      what: `${s.huge.files} tiny images: peak RSS, and above the ${s.small.files}-image run's`,
      before: 'not measured',
      goal: '≤ 120 MB, ≤ 10 %',
      now: `${fixed(s.huge.peakRssMiB, 0)} MiB, +${fixed(growth(s.huge) * 100, 1)} %`,
      met: s.huge.peakRssMiB * 1.048576 <= 120 && growth(s.huge) <= 0.1,
    });
  return rows;
}

function downloadRows(d: DownloadResult): Row[] {
  const ratio = d.clWallMs / d.curlWallMs;
  return [
    {
      what: `download of ${fixed(d.bytes / 1024 ** 3, 0)} GiB: wall vs \`curl -o\``,
      before: '1.20×',
      goal: '≤ 1.1×',
      now: `${fixed(d.clWallMs, 0)} / ${fixed(d.curlWallMs, 0)} ms = ${fixed(ratio, 2)}× (${downloadReference(d)})`,
      met: ratio <= 1.1,
    },
    {
      what: 'download: peak RSS',
      before: '117–128 MiB',
      goal: '≤ 100 MB',
      now: `${fixed(d.clPeakRssMiB, 0)} MiB`,
      met: d.clPeakRssMiB * 1.048576 <= 100,
    },
  ];
}

function multipartRows(m: MultipartResult): Row[] {
  const wall = m.singleWallMs / m.partsWallMs;
  const cpu = m.partsCpuMs / m.singleCpuMs;
  const capped = m.cappedCurlWallMs / m.cappedPartsWallMs;
  return [
    {
      what: 'multipart on loopback: speed vs the single PUT (single wall / parts wall)',
      before: '0.88×',
      goal: '≥ 0.95×',
      now: `${fixed(wall, 2)}×`,
      met: wall >= 0.95,
    },
    {
      what: 'multipart on loopback: CPU vs the single PUT',
      before: '1.19×',
      goal: '≤ 1.1×',
      now: `${fixed(cpu, 2)}×`,
      met: cpu <= 1.1,
    },
    {
      what: `multipart through a ${m.capMBps} MB/s-per-connection cap vs \`curl -T\``,
      before: '4.4×',
      goal: 'kept (≥ 3×)',
      now: `${fixed(capped, 2)}×`,
      met: capped >= 3,
    },
  ];
}

/** The section of bench/results.md; empty when this run measured none of issue 41's scenarios. */
export function renderIssue41(r: Issue41Inputs): string[] {
  const rows = [
    ...(r.scale ? scaleRows(r.scale) : []),
    ...(r.large ? largeRows(r.large) : []),
    ...(r.download ? downloadRows(r.download) : []),
    ...(r.multipart ? multipartRows(r.multipart) : []),
  ];
  if (rows.length === 0) return [];
  return [
    '## Issue 41: before and after',
    '',
    '"Before" is the figure the issue was filed with (the build before it); "now" is this run, its reference measured in the same run.',
    '',
    '| target | before | goal | now | verdict |',
    '|---|---|---|---|---|',
    ...rows.map((x) => `| ${x.what} | ${x.before} | ${x.goal} | ${x.now} | ${x.met ? 'met' : '**missed**'} |`),
    '',
  ];
}
