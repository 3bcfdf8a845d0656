import { ApiError } from '@bursar/errors';

/*
 * Failures the contract leaves codeless: status first, `code` null, a message for humans.
 * Coded failures live in each module's ErrorCatalog instead.
 */

/** 404 for a record that does not exist or lies outside the caller's reach (the two look alike). */
export function notFound(what: string): ApiError {
  return new ApiError(404, null, `No such ${what}`, {
    hint: `Check the ${what}'s id or name, and that it belongs to this workspace or agent (others' records answer 404 too)`,
  });
}

/** 422 for a well-formed request the current state refuses; `param` names the offending field when there is one. */
export function unprocessable(message: string, param?: string): ApiError {
  return new ApiError(422, null, message, param === undefined ? {} : { param });
}
