import { ErrorCatalog } from '@bursar/errors';

export const ReserveErrors = new ErrorCatalog({
  reserve_insufficient_funds: {
    status: 422,
    message: "The source account's available balance does not cover the reserve; nothing was written",
  },
  reserve_currency_mismatch: { status: 422, message: "The currency differs from the reserve's or the other account's" },
  reserve_release_exceeds_balance: {
    status: 422,
    message: "The amount exceeds the reserve's available balance; nothing was written",
  },
});
