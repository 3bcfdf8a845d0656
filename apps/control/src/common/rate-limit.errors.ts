import { ErrorCatalog } from '@bursar/errors';

export const RateLimitErrors = new ErrorCatalog({
  rate_limited: { status: 429, message: 'Too many requests; retry after the number of seconds in Retry-After', hint: "Slow down and retry after the seconds in Retry-After; X-RateLimit-Remaining shows what is left" },
});
