// Logs of `contentlib serve`, with Fastify's own logger (pino): one line per request, JSON for
// log collectors or a short readable line on a terminal. Nothing here ever sees a key, a
// signature or a presigned URL's query: lines carry the route pattern and the path only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Logger, type LevelWithSilent, pino } from 'pino';
import { PROBE_ROUTES } from './health.js';

export type LogFormat = 'pretty' | 'json';
export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LogOptions {
  level: LevelWithSilent;
  format: LogFormat;
  /** Where lines go (default: stderr, so that stdout keeps only the URL line). */
  destination?: { write(line: string): unknown };
  /** Pretty format only: colour the level. */
  color?: boolean;
}

/** The request's path without its query string: a presigned URL's signature never reaches a log. */
export function pathOnly(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

export function createLogger(o: LogOptions): Logger {
  const out = o.destination ?? process.stderr;
  const stream = o.format === 'pretty' ? prettyStream(out, o.color ?? false) : out;
  return pino(
    {
      level: o.level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Fastify's own lines (a stream error, a write-head error) may pass the request or the
      // reply: method and path only, never headers or the query.
      serializers: {
        req: (req: { method?: string; url?: string }) => ({ method: req.method, path: pathOnly(req.url ?? '') }),
        res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    stream,
  );
}

function numberHeader(value: unknown): number | undefined {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The fields of a request's one log line. */
export function requestLine(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  return {
    method: request.method,
    route: request.routeOptions.url ?? null,
    path: pathOnly(request.url),
    status: reply.statusCode,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
    bytesIn: numberHeader(request.headers['content-length']) ?? 0,
    bytesOut: numberHeader(reply.getHeader('content-length')) ?? 0,
    brandId: request.caller?.brandId ?? null,
    keyId: request.caller?.keyId ?? null,
    ...(request.errorCode ? { errorCode: request.errorCode } : {}),
  };
}

/** One line per request when it ends (and one when the client goes away first); probes at debug. */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const probe = PROBE_ROUTES.has(request.routeOptions.url ?? '') || request.routeOptions.url === '/metrics';
    request.log[probe ? 'debug' : 'info'](requestLine(request, reply), 'request');
  });
  app.addHook('onRequestAbort', async (request) => {
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? null, path: pathOnly(request.url) },
      'request aborted by the client',
    );
  });
}

const LEVEL_COLORS: Record<string, string> = { fatal: '31', error: '31', warn: '33', info: '32', debug: '90' };

/** A line for people: time, level, message and the rest as key=value. */
export function formatPretty(entry: Record<string, unknown>, color: boolean): string {
  const { time, level, msg, pid: _pid, hostname: _host, err, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const label = String(level ?? '')
    .toUpperCase()
    .padEnd(5);
  const shown = color ? `\u001b[${LEVEL_COLORS[String(level)] ?? '0'}m${label}\u001b[0m` : label;
  let text: string;
  if (msg === 'request' && typeof rest.method === 'string') {
    const { method, path, status, durationMs, requestId, ...more } = rest;
    delete more.route;
    text = `${String(status)} ${method} ${String(path)} ${String(durationMs)} ms${pairs(more)} req=${String(requestId)}`;
  } else {
    text = `${String(msg ?? '')}${pairs(rest)}`;
  }
  const stack = (err as { stack?: unknown } | undefined)?.stack;
  return `${clock} ${shown} ${text}${typeof stack === 'string' ? `\n${stack}` : ''}`;
}

function pairs(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined && v !== 0)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('');
}

function prettyStream(out: { write(line: string): unknown }, color: boolean): { write(line: string): void } {
  return {
    write(line: string) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      out.write(`${formatPretty(entry as Record<string, unknown>, color)}\n`);
    },
  };
}
