export * from './random';
export * from './digest';
export * from './canonical-json';
export * from './hmac-signature';
export * from './secret-box';
export * from './es256';
export * from './es256-compact';
export * from './root-key';
