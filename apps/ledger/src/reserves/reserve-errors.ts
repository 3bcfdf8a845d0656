import { ErrorCatalog } from '@bursar/errors';

export const ReserveErrors = new ErrorCatalog({
  reserve_insufficient_funds: {
    status: 422,
    message: "The source account's available balance does not cover the reserve; nothing was written",
    hint: "Reserve at most the source account's available balance, or fund it first",
  },
  reserve_currency_mismatch: { status: 422, message: "The currency differs from the reserve's or the other account's", hint: "Use the reserve's currency and accounts held in it" },
  reserve_release_exceeds_balance: {
    status: 422,
    message: "The amount exceeds the reserve's available balance; nothing was written",
    hint: "Release at most the reserve's available balance (GET the reserve to read it)",
  },
});
