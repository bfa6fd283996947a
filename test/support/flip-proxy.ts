// A link that corrupts data: an HTTP proxy on 127.0.0.1 in front of a store (our server's disk
// store, or RGW) that passes every request through unchanged, except that the body of each of
// the first `count` presigned PUTs (a client's upload: the server's own copies to the store are
// PUTs too, and pass untouched) has one byte flipped (XOR 0xff) at offset `at` — what a faulty proxy or
// network device does, and what a checksum declared at presign must catch. The length is kept, so
// only the bytes' SHA-256 can tell. Signed URLs name the store's address, so the server is started
// with its public URL (disk) or its S3 endpoint (RGW) set to the proxy's.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Transform } from 'node:stream';
import { forward, passThrough } from './http-forward.js';
import { listenLocal } from './listen.js';

export interface FlipProxy {
  url: string;
  /** PUT bodies changed so far. */
  flipped(): number;
  /** Presigned PUTs seen (changed or not). */
  puts(): number;
  /** The next `count` presigned PUTs are changed. */
  arm(count: number): void;
  close(): Promise<void>;
}

/** Passes a body through with the byte at `at` flipped. */
function flipAt(at: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (at >= seen && at < seen + chunk.length) {
        const copy = Buffer.from(chunk);
        copy[at - seen] = copy[at - seen]! ^ 0xff;
        chunk = copy;
      }
      seen += chunk.length;
      cb(null, chunk);
    },
  });
}

export async function startFlipProxy(upstream: () => string, o: { at: number; count: number }): Promise<FlipProxy> {
  let left = o.count;
  let flipped = 0;
  let puts = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body = passThrough;
    const query = new URL(req.url ?? '/', 'http://proxy.invalid').searchParams;
    if (req.method === 'PUT' && (query.has('signature') || query.has('X-Amz-Signature'))) {
      puts++;
      if (left > 0) {
        left--;
        flipped++;
        body = () => flipAt(o.at);
      }
    }
    await forward(req, res, upstream(), body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket?.destroy());
  });
  return {
    ...(await listenLocal(server)),
    flipped: () => flipped,
    puts: () => puts,
    arm: (count) => {
      left = count;
    },
  };
}
