/** Exact action types, a namespace (`payment.*`) or everything (`*`). */
export const SCOPE_PATTERN = /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?)$/;
export const SCOPE_MESSAGE = 'each scope must be an action type, a namespace such as payment.*, or *';
