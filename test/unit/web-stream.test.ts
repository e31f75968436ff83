/** Node streams as Response bodies: read in order, destroyed on cancel, and their errors reach the reader. */
import { createReadStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { webStreamOf } from '../../functions/http/web-stream';

describe('webStreamOf', () => {
  it('gives the chunks in order and then ends', async () => {
    const text = await new Response(webStreamOf(Readable.from([Buffer.from('a'), Buffer.from('bc')]))).text();
    expect(text).toBe('abc');
  });

  it('destroys the source when the reader cancels, with chunks still buffered in it', async () => {
    const source = new PassThrough();
    source.write('buffered');
    const stream = webStreamOf(source);
    await stream.cancel();
    source.write('late'); // after the cancel: nothing may throw
    expect(source.destroyed).toBe(true);
  });

  it('passes an error from before the first read to the reader', async () => {
    const missing = createReadStream('/nonexistent/gridgate-web-stream-test');
    const stream = webStreamOf(missing);
    await new Promise<void>((resolve) => missing.once('close', () => resolve()));
    await expect(new Response(stream).text()).rejects.toThrow(/ENOENT/);
  });
});
