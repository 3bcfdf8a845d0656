export * from './log-source';
export * from './log-leaf';
export * from './log-store';
export * from './log-sealer';
export * from './log-proofs';
export * from './log-verifier';
export * from './log-tables';
export * from './remote-log-verifier';
