import type { EntityManager } from 'typeorm';

/**
 * Writes a new agent's starter policy inside the agent's creation transaction. The policy engine
 * provides it (bound in the app module), so agents need not import policies, which import agents.
 */
export const STARTER_POLICY_WRITER = Symbol('STARTER_POLICY_WRITER');

export interface StarterPolicyWriter {
  createStarter(em: EntityManager, workspaceId: string, agentId: string, actorSub: string | null, traceId: string): Promise<object>;
}
