/** The entries that record a transaction's creation (sql/ledger-log-changes.sql reads these from the books). */
export const TRANSACTION_CREATION_ENTRIES = ['transaction.created', 'transaction.reversal_created', 'transaction.refund_created'];
