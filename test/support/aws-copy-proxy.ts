// AWS's documented CopyObject behaviour, simulated in front of RGW: "the ETag of the copy is the
// same as the source's only when the source was not uploaded in parts"; a copy of a
// multipart-uploaded object gets an ETag of its own. RGW 16.2 keeps the source's ETag (`…-N`)
// for such a copy, so this HTTP proxy on 127.0.0.1 gives it a new one: in the copy's answer and,
// from then on, in every HEAD and GET of that object, until the object is written or deleted
// again. (A request's headers cannot be changed without breaking its signature, so an If-Match
// naming the new ETag would reach RGW as it is: the server sends none on its reads.) Everything else passes
// through unchanged, Host included, so SigV4 signatures made for the proxy's address still hold.
import { createHash } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { requestUpstream } from './http-forward.js';
import { listenLocal } from './listen.js';

export interface AwsCopyProxy {
  url: string;
  /** Copies of multipart objects given an ETag of their own so far. */
  renamed(): number;
  close(): Promise<void>;
}

const bare = (etag: string) => etag.replace(/"/g, '').replace(/&quot;/g, '');

export async function startAwsCopyProxy(upstream: string): Promise<AwsCopyProxy> {
  /** Object path → its RGW ETag and the one AWS would have given it (both bare). */
  const given = new Map<string, { real: string; aws: string }>();
  let renamed = 0;

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const isCopy = req.method === 'PUT' && req.headers['x-amz-copy-source'] !== undefined;
    const known = given.get(path);
    if (req.method === 'PUT' || req.method === 'DELETE' || req.method === 'POST') given.delete(path);
    const out = requestUpstream(req, upstream);
    out.on('error', () => res.destroy());
    out.on('response', (answer: IncomingMessage) => {
      void (async () => {
        const answerHeaders = { ...answer.headers };
        if (isCopy && answer.statusCode === 200) {
          const chunks: Buffer[] = [];
          for await (const c of answer) chunks.push(c as Buffer);
          let body = Buffer.concat(chunks).toString('utf8');
          const etag = /<ETag>([^<]*)<\/ETag>/.exec(body)?.[1];
          if (etag && /-\d+$/.test(bare(etag))) {
            const real = bare(etag);
            const aws = createHash('md5').update(`copy of ${real} at ${path}`).digest('hex');
            given.set(path, { real, aws });
            renamed++;
            body = body.replace(/<ETag>[^<]*<\/ETag>/, `<ETag>&quot;${aws}&quot;</ETag>`);
          }
          delete answerHeaders['transfer-encoding'];
          answerHeaders['content-length'] = String(Buffer.byteLength(body));
          res.writeHead(answer.statusCode, answerHeaders);
          res.end(body);
          return;
        }
        if (known && typeof answerHeaders.etag === 'string' && bare(answerHeaders.etag) === known.real)
          answerHeaders.etag = `"${known.aws}"`;
        res.writeHead(answer.statusCode ?? 502, answerHeaders);
        await pipeline(answer, res);
      })().catch(() => res.destroy());
    });
    pipeline(req, out).catch(() => out.destroy());
  });
  const listening = await listenLocal(server);
  return { url: listening.url, renamed: () => renamed, close: listening.close };
}
