// Dependency outages in the log: one line when a part (database, storage) starts failing and one
// when it answers again, however many requests failed in between. During a 15 s database outage
// a busy instance fails hundreds of requests; a stack trace for each (what an internal error
// gets) buries the one fact the operator needs: what is down, since when, and when it came back.
import type { FastifyBaseLogger } from 'fastify';

/** A part of the service (database, storage) the app names. */
type Part = string;

/** A call that failed because its part is unavailable (src/server/unavailable.ts's UnavailableError is one). */
export interface PartFailure {
  part: Part;
  /** What failed, for the log only. */
  reason: string;
}

export interface OutageLog {
  /** A call to `err.part` failed because it is unavailable. */
  failed(err: PartFailure): void;
  /** A call to `part` succeeded: once calls have gone on succeeding for a while, an outage of it is over. */
  succeeded(part: Part): void;
  /** The parts in an outage now (tests, metrics). */
  down(): Part[];
}

interface Episode {
  since: number;
  failures: number;
  /** Set while calls succeed again: the outage ends when it fires. */
  settling?: NodeJS.Timeout;
}

/**
 * `settleMs`: how long calls must go on succeeding, with none failing, before the outage is
 * over. Calls started during the outage fail until their own time limits run out, after the
 * first successes: without it, recovery would flap in the log. Use the longest call time limit.
 */
export function createOutageLog(
  log: FastifyBaseLogger | undefined,
  settleMs: number,
  now: () => number = Date.now,
): OutageLog {
  const episodes = new Map<Part, Episode>();
  const end = (part: Part, episode: Episode) => {
    episodes.delete(part);
    log?.info({ part, failedCalls: episode.failures, outageMs: now() - episode.since }, `${part} available again`);
  };
  return {
    failed(err) {
      const episode = episodes.get(err.part);
      if (episode) {
        episode.failures++;
        clearTimeout(episode.settling);
        episode.settling = undefined;
        return;
      }
      episodes.set(err.part, { since: now(), failures: 1 });
      log?.warn(
        { part: err.part, reason: err.reason },
        `${err.part} unavailable: answering 503 with Retry-After until it recovers`,
      );
    },
    succeeded(part) {
      const episode = episodes.get(part);
      if (!episode || episode.settling) return;
      episode.settling = setTimeout(() => end(part, episode), settleMs);
      episode.settling.unref();
    },
    down: () => [...episodes.keys()],
  };
}
