// How many parts of multipart uploads the CLI's journals under a home have recorded (the CLI
// writes each as it is stored): how the resume tests and the multipart bench know when to stop
// an upload half-way.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Database } from '../../src/sqlite/database.js';

export async function journalParts(home: string): Promise<number> {
  const journals = join(home, 'state', 'journals');
  let n = 0;
  for (const name of (await readdir(journals).catch(() => [] as string[])).filter((f) => f.endsWith('.db'))) {
    const db = new Database(join(journals, name), { readOnly: true });
    try {
      if (db.prepare("SELECT name FROM sqlite_master WHERE name = 'parts'").get())
        n += (db.prepare('SELECT count(*) AS n FROM parts').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  return n;
}
