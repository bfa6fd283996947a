// The line a command prints while it rides out an outage names the address that refuses: the
// service's, or the object store's when a storage PUT is what fails (issue 36: a store that was
// down read as "Waiting for <the API>" while the API answered 200).
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/errors.js';
import { waitingFor } from '../../src/cli/api.js';

const refused = (url: string) =>
  new NetworkError({ message: 'connection refused', code: 'ECONNREFUSED', method: 'PUT', url });

describe('waitingFor', () => {
  const api = 'http://127.0.0.1:4000';
  it.each([
    ['the API refusing', refused(`${api}/api/v1/upload/presign`), api],
    [
      'the store refusing',
      refused('http://127.0.0.1:9000/media/staging/x?X-Amz-Signature=secret'),
      'http://127.0.0.1:9000 (the object store)',
    ],
    ['an error without an address', new Error('something'), api],
    ['an address that is not a URL', refused('not a url'), api],
  ])('%s → %s', (_, error, named) => {
    expect(waitingFor(api, error)).toBe(named);
    expect(waitingFor(api, error)).not.toContain('secret');
  });

  it('a base URL with a path is named whole when the API is what fails', () => {
    expect(waitingFor('https://cl.example/lib', refused('https://cl.example/lib/api/v1/content'))).toBe(
      'https://cl.example/lib',
    );
  });
});
