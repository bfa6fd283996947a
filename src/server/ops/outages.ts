// Dependency outages in the log: one line when a part (database, storage) starts failing and one
// when it answers again, however many requests failed in between. During a 15 s database outage
// a busy instance fails hundreds of requests; a stack trace for each (what an internal error
// gets) buries the one fact the operator needs: what is down, since when, and when it came back.
import type { FastifyBaseLogger } from 'fastify';
import type { DependencyPart, UnavailableError } from '../unavailable.js';

export interface OutageLog {
  /** A call to `err.part` failed because it is unavailable. */
  failed(err: UnavailableError): void;
  /** A call to `part` succeeded: an outage of it, if any, is over. */
  succeeded(part: DependencyPart): void;
  /** The parts failing now (tests, metrics). */
  down(): DependencyPart[];
}

interface Episode {
  since: number;
  failures: number;
}

export function createOutageLog(log?: FastifyBaseLogger, now: () => number = Date.now): OutageLog {
  const episodes = new Map<DependencyPart, Episode>();
  return {
    failed(err) {
      const episode = episodes.get(err.part);
      if (episode) {
        episode.failures++;
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
      if (!episode) return;
      episodes.delete(part);
      log?.info({ part, failedCalls: episode.failures, outageMs: now() - episode.since }, `${part} available again`);
    },
    down: () => [...episodes.keys()],
  };
}
