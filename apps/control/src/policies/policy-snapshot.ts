import { canonicalDigest } from '@bursar/crypto';
import { unprocessable } from '../common/control-errors';
import { PolicySnapshot } from './policy-compiler';
import { desugarTypedColumns, PolicyRule, TypedColumns } from './policy-rules';

export const NO_POLICY_VERSION = 'pv_none';

export type PolicyBody = TypedColumns & { id: string; mode: 'blocklist' | 'allowlist'; imports: string[]; rules: PolicyRule[] };

/** The policy as a decision reads it: typed columns desugared, module rules resolved now. */
export function snapshotPolicy(policy: PolicyBody, moduleRules: ReadonlyMap<string, PolicyRule[]>): PolicySnapshot {
  return {
    id: policy.id,
    mode: policy.mode,
    imports: policy.imports,
    imported_rules: policy.imports.flatMap((name) => {
      const rules = moduleRules.get(name);
      if (!rules) throw unprocessable(`imports: no policy module named ${name}`, 'imports');
      return rules;
    }),
    rules: [...desugarTypedColumns(policy.id, policy), ...policy.rules],
  };
}

/** `pv_` + SHA-256 of the canonical JSON of the snapshots: same rules, same version. */
export function policyVersion(snapshots: PolicySnapshot[]): string {
  return snapshots.length ? canonicalDigest('pv_', snapshots) : NO_POLICY_VERSION;
}
