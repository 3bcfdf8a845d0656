import fc from 'fast-check';
import { ApiError } from '@bursar/errors';
import { ParsedStatement, StatementReader } from './statement';

/** The coded refusal a parser throws, so a spec can check its code, status and message. */
export function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the parser to refuse the file');
}

/** Expects `run` to refuse the file with 422 invalid_statement and a message matching `message`. */
export function expectInvalidStatement(run: () => unknown, message: RegExp): void {
  const error = refusal(run);
  expect([error.status, error.code]).toEqual([422, 'invalid_statement']);
  expect(error.message).toMatch(message);
}

/**
 * The refusals every format's suite checks: each case `[name, text, message]` refused as above, and
 * every truncation and mutation of each of `samples` read or refused.
 */
export function itRefusesBadFiles(parse: (text: string) => unknown, cases: [string, string, RegExp][], samples: string[], title = 'refuses %s') {
  it.each(cases)(title, (_name, text, message) => expectInvalidStatement(() => parse(text), message));
  it('reads or refuses (invalid_statement) every truncated and mutated file', () => {
    for (const sample of samples) checkMutations(parse, sample);
  });
}

/**
 * Truncations and byte mutations of a valid file: the parser either reads it or refuses it with
 * `invalid_statement`; any other failure would surface as a 5xx.
 */
export function checkMutations(parse: (text: string) => unknown, sample: string, runs = 300) {
  const bytes = Buffer.from(sample, 'utf8');
  fc.assert(
    fc.property(
      fc.nat({ max: bytes.length }),
      fc.array(fc.tuple(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
      (cut, edits) => {
        const mutated = Buffer.from(bytes.subarray(0, Math.max(cut, 1)));
        for (const [at, value] of edits) if (at < mutated.length) mutated[at] = value;
        try {
          parse(mutated.toString('utf8'));
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'invalid_statement') throw error;
        }
      },
    ),
    { numRuns: runs, seed: 27 },
  );
}

/** Every statement a reader yields, with its entries gathered from the batches. */
export function collectStatements(reader: StatementReader): ParsedStatement[] {
  const entries = new Map<number, ParsedStatement['entries']>();
  for (let next = reader.next(); ; next = reader.next()) {
    if (next.done) return next.value.map(({ entry_count: _count, ...s }, i) => ({ ...s, entries: entries.get(i) ?? [] }));
    entries.set(next.value.statement, [...(entries.get(next.value.statement) ?? []), ...next.value.entries]);
  }
}
