// One image for an existing carousel's place (`edit <id> --replace-image N FILE`): checked like
// any carousel image of an upload before anything is sent, then presigned as a carousel image and
// streamed; `edit` then completes it into the image's place (docs/api.md, Carousel images).
import { inspectFile } from '../../media/inspect.js';
import type { PlanProblem } from '../../rules/problem.js';
import { FORMATS, TYPE_RULES } from '../../rules/rules.js';
import { causeOf } from './events.js';
import { checkImage, flagTypeHint } from '../plan/plan-checks.js';
import { type SendableFile, type TransferDeps, transferFile } from './transfer.js';

/** The image, or what is wrong with it (nothing sent yet). */
export async function inspectCarouselImage(
  path: string,
  shown: string = path,
): Promise<{ ok: true; file: SendableFile } | { ok: false; problems: PlanProblem[] }> {
  const file = await inspectFile(path, shown);
  const isVideo = file.realFormat !== undefined && FORMATS[file.realFormat].media === 'video';
  // Missing, empty or in no supported format: inspection said so, once.
  const problems =
    file.problems.length > 0
      ? file.problems
      : isVideo
        ? [notAnImage(shown)]
        : checkImage(file, shown, 'carousel', flagTypeHint);
  if (problems.length > 0 || file.contentType === undefined) return { ok: false, problems };
  return { ok: true, file: { ...file, contentType: file.contentType } };
}

const IMAGE_EXTENSIONS = TYPE_RULES.carousel.formats.map((f) => FORMATS[f].extensions[0]).join(', ');

function notAnImage(shown: string): PlanProblem {
  return {
    file: shown,
    rule: 'type',
    actual: 'video',
    message: `is a video; a carousel takes images (${IMAGE_EXTENSIONS})`,
    hint: `choose a ${IMAGE_EXTENSIONS} image`,
  };
}

/** Sends the image's bytes as a carousel image and returns the presigned upload's key. */
export async function sendCarouselImage(file: SendableFile, deps: TransferDeps, signal: AbortSignal): Promise<string> {
  const ref = { path: file.path, name: file.name, size: file.size, item: 0, role: 'file' as const };
  // `edit` reports what went wrong, not in which step.
  const presigned = await transferFile(file, ref, { type: 'carousel' }, deps, () => {}, signal).catch(
    (err: unknown) => {
      throw causeOf(err);
    },
  );
  return presigned.key;
}
