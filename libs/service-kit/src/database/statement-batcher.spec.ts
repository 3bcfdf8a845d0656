import { QueryFailedError } from 'typeorm';
import { StatementBatcher } from './statement-batcher';

const refused = (code: string) => new QueryFailedError('SELECT', [], Object.assign(new Error('refused'), { code }));

describe('StatementBatcher', () => {
  it('sends a lone call at once and calls that arrive meanwhile together, each getting its own result', async () => {
    const batches: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 10));
      return items.map((i) => i * 10);
    });
    const results = await Promise.all([1, 2, 3, 4].map((i) => batcher.submit(i)));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('never puts two items with one conflict key in a batch', async () => {
    const batches: string[][] = [];
    const batcher = new StatementBatcher<string, string>(
      async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        return items;
      },
      { conflictKey: (item) => (item.startsWith('free') ? null : item[0]) },
    );
    await Promise.all(['a1', 'a2', 'b1', 'free1', 'free2', 'a3', 'b2'].map((i) => batcher.submit(i)));
    expect(batches).toEqual([['a1'], ['a2', 'b1', 'free1', 'free2'], ['a3', 'b2']]);
  });

  it('retries a batch the database refused item by item, so only the bad item fails', async () => {
    const batcher = new StatementBatcher<number, number>(async (items) => {
      if (items.includes(13)) throw refused('22P02');
      return items;
    });
    const first = batcher.submit(1);
    const rest = [2, 13, 4].map((i) => batcher.submit(i).then((v) => ({ v }), (e: Error) => ({ e: e.message })));
    expect(await first).toBe(1);
    expect(await Promise.all(rest)).toEqual([{ v: 2 }, { e: 'refused' }, { v: 4 }]);
  });

  it('fails a whole batch at once when the database could not be reached', async () => {
    let calls = 0;
    const batcher = new StatementBatcher<number, number>(async () => {
      calls++;
      throw new QueryFailedError('SELECT', [], Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(i)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(calls).toBe(2); // the lone first call, then the other two together: no retry per item
  });

  it('runs lanes apart, several batches of a lane at once, and never two batches holding one key', async () => {
    const batches: string[][] = [];
    const gates: (() => void)[] = [];
    const batcher = new StatementBatcher<string, string>(
      async (items) => {
        batches.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items;
      },
      // Items are "<lane>:<key>,<key>"; a lane runs two batches at once.
      { lane: (item) => item.split(':')[0], inFlight: 2, holds: (item) => item.split(':')[1].split(',') },
    );
    const done = ['x:a,b', 'y:a', 'x:b,c', 'x:d', 'x:a,e', 'x:c'].map((i) => batcher.submit(i));
    // x:a,b, y:a (another lane) and x:d (no key held) start; x:b,c, x:a,e and x:c wait for x:a,b to release a and b.
    expect(batches).toEqual([['x:a,b'], ['y:a'], ['x:d']]);
    gates.shift()?.();
    await done[0];
    await new Promise((r) => setImmediate(r));
    // They then go together, sharing keys within the batch.
    expect(batches[3]).toEqual(['x:b,c', 'x:a,e', 'x:c']);
    while (gates.length) gates.shift()?.();
    await Promise.all(done);
  });
});
