import { canonicalDigest } from '@bursar/crypto';
import type { PolicySnapshot } from '../policies/policy-compiler';
import type { Remedy } from './remedies';

export type Outcome = 'allowed' | 'denied' | 'requires_approval';

export interface Decision {
  /** Present on recorded decisions; a simulation or preview has none. */
  id?: string;
  outcome: Outcome;
  rule: string | null;
  detail: Record<string, unknown>;
  headroom: Record<string, number>;
  policy_snapshot: PolicySnapshot[];
  policy_version: string;
  frame_hash: string;
  remedy: Remedy | null;
}

/** The request as evaluated; payments arrive here as `payment.create` against their counterparty. */
export interface EvaluatedAction {
  workspace_id: string;
  agent_id: string;
  budget_id: string;
  action_type: string;
  resource: string | null;
  cost_cents: number;
  currency: string;
  metadata: Record<string, unknown>;
}

/** How an executor recomputes `frame_hash` and `policy_version`; shown in the OpenAPI document. */
export const FRAME_HASH_DOC =
  'frame_hash is "fh_" + lowercase hex SHA-256 of the canonical JSON (keys sorted at every level, no whitespace) of ' +
  '{action_type, agent_id, budget_id, cost_cents, currency, metadata, resource, workspace_id} as the request was evaluated ' +
  '(payments: action_type "payment.create", resource = counterparty, cost_cents = amount_cents, metadata {} when absent). ' +
  'policy_version is "pv_" + SHA-256 hex of the canonical JSON of decision.policy_snapshot ("pv_none" without a policy).';

/**
 * `fh_` + SHA-256 hex of the canonical JSON of the frame below; an executor holding the request
 * recomputes it to confirm a receipt is for that request (metadata included, though never echoed).
 */
export function frameHash(action: EvaluatedAction): string {
  return canonicalDigest('fh_', {
    action_type: action.action_type,
    agent_id: action.agent_id,
    budget_id: action.budget_id,
    cost_cents: action.cost_cents,
    currency: action.currency,
    metadata: action.metadata,
    resource: action.resource,
    workspace_id: action.workspace_id,
  });
}

/** HTTP status of an authorization with this outcome. */
export function outcomeStatus(outcome: Outcome): number {
  return outcome === 'allowed' ? 201 : outcome === 'requires_approval' ? 202 : 403;
}
