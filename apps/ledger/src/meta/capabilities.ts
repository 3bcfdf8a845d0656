import { COMMON_LIMITS, POSTING_LIMITS } from '../common/pagination';
import { MODES } from '../common/mode';
import { LedgerSettings } from '../config/ledger.settings';
import { CLIENT_SCOPES } from '../oauth-clients/oauth-scopes';
import { OrganizationEntity } from '../organizations/organization.entity';
import { planFeatures } from '../organizations/plans';

/** Bumped (as a date) whenever the document below changes shape or meaning. */
export const CAPABILITIES_VERSION = '2026-11-21';

/**
 * What this deployment offers the caller's organization: the reference's R2 fields (features,
 * plan, tenant status, organization model) and R1's (limits and guarantees), since the contract
 * asks for both.
 */
export function describeCapabilities(organization: OrganizationEntity, settings: LedgerSettings) {
  const plan = planFeatures(organization.plan);
  return {
    object: 'capabilities' as const,
    ledger_capabilities_version: CAPABILITIES_VERSION,
    api_version: 'v1',
    // R1 names the deployed release; this service versions the document itself.
    release: CAPABILITIES_VERSION,
    engine: 'postgres',
    tenant_status: organization.suspendedAt ? ('suspended' as const) : ('active' as const),
    plan: organization.plan,
    live_mode: true,
    features: {
      idempotency_keys: true,
      bulk_transactions: true,
      period_close: true,
      webhooks: true,
      events_tail: true,
      conditional_requests: true,
      self_service_live_clients: plan.selfServiceLiveClients,
      reconciliation: true,
      reserves: true,
      exports: true,
    },
    organization_model: {
      hierarchy: ['organization', 'ledger'],
      many_ledgers_per_org: true,
      modes_per_org: [...MODES],
      mode_lives_on: 'ledger',
    },
    conditional_posting: {
      condition_keys: ['lock_version', 'min_available_balance', 'max_available_balance'],
      error_code_on_mismatch: 'precondition_failed',
    },
    limits: {
      rate_reads_per_second: settings.LEDGER_RATE_LIMIT_READS_PER_SECOND,
      rate_writes_per_second: settings.LEDGER_RATE_LIMIT_WRITES_PER_SECOND,
      page_default_limit: COMMON_LIMITS.defaultLimit,
      page_max_limit: COMMON_LIMITS.maxLimit,
      postings_page_default_limit: POSTING_LIMITS.defaultLimit,
      postings_page_max_limit: POSTING_LIMITS.maxLimit,
      idempotency_key_max_length: 255,
      access_token_ttl_seconds: settings.LEDGER_ACCESS_TOKEN_TTL_SECONDS,
      secret_overlap_hours: 24,
      step_up_max_token_age_seconds: 300,
      webhook_delivery_attempts: 5,
    },
    guarantees: {
      double_entry: true,
      append_only: true,
      idempotent_writes: true,
      events_in_same_transaction: true,
    },
    money_representation: { unit: 'minor', encoding: 'decimal_string', rounding: 'never' },
    consistency: { reads: 'read_your_writes', balances: 'strong' },
    time: { clock: 'utc', format: 'iso8601' },
    // R1's reconciliation block: the passes a run applies, in order (sum_in_window when asked).
    reconciliation: { available: true, strategies: ['external_ref', 'exact', 'sum_in_window'] },
    pagination: { style: 'cursor', default_limit: COMMON_LIMITS.defaultLimit, max_limit: COMMON_LIMITS.maxLimit },
    auth: {
      scheme: 'oauth2',
      algorithm: 'HS256',
      grant_types: ['client_credentials'],
      scopes: [...CLIENT_SCOPES],
      discovery: `${settings.publicUrl}/.well-known/oauth-authorization-server`,
    },
  };
}
