// A request to a server under fault, recorded and never thrown: the end-to-end tests that stop
// PostgreSQL or the store under load collect every answer and judge them all afterwards.
import { request } from 'undici';

export interface Answer {
  /** The test's name for the request. */
  op: string;
  /** 0 when no answer came at all (an instance that died, a reset): a status no assertion accepts. */
  status: number;
  /** From sending the request to the answer's last byte. */
  ms: number;
  retryAfter?: string;
  /** An error answer's code. */
  code?: string;
  /** What came back when it was neither a success (2xx) nor a 503 (or no answer at all), to say what went wrong. */
  text?: string;
}

export async function answerOf(
  op: string,
  url: string,
  init: { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; headers: Record<string, string>; body?: string | Buffer },
): Promise<Answer & { body: unknown }> {
  const started = performance.now();
  let res: Awaited<ReturnType<typeof request>>;
  let text: string;
  try {
    res = await request(url, init);
    text = await res.body.text();
  } catch (err) {
    return { op, status: 0, ms: performance.now() - started, text: String(err), body: undefined };
  }
  const ms = performance.now() - started;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const retryAfter = res.headers['retry-after'];
  const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
  const ok = res.statusCode >= 200 && res.statusCode < 300;
  return {
    op,
    status: res.statusCode,
    ...(ok || res.statusCode === 503 ? {} : { text: text.slice(0, 300) }),
    ms,
    ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    ...(code ? { code } : {}),
    body,
  };
}
