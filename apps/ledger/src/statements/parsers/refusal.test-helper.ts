import { ApiError } from '@bursar/errors';

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
