import { applyDecorators, CanActivate, Controller, createParamDecorator, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { verifySecret } from '@bursar/crypto';
import { bearerToken } from '@bursar/service-kit';
import { ControlRateLimiter } from '../common/control-rate-limiter';
import { Agent } from './agent.entity';
import { agentKeyLookup } from './agent-key';
import { AgentKeyCache, KeyedAgent } from './agent-key-cache';
import { AgentKeyErrors } from './agent-key.errors';
import { AgentsRepository } from './agents.repository';

type AgentRequest = Request & { agent?: Agent };

const LAST_USED_RESOLUTION_MS = 60_000;

/** Admits requests carrying the key of an active agent, within its rate limit; identity tokens never pass. */
@Injectable()
export class AgentKeyGuard implements CanActivate {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly keyCache: AgentKeyCache,
    private readonly rateLimiter: ControlRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AgentRequest>();
    const key = bearerToken(req);
    if (!key) throw AgentKeyErrors.error('runtime_key_required');
    const lookup = agentKeyLookup(key);
    const agent = lookup ? await this.agents.findByKeyLookup(lookup) : null;
    if (!agent || !this.matches(lookup as string, agent, key) || agent.status !== 'active') {
      throw AgentKeyErrors.error('invalid_runtime_key');
    }
    await this.rateLimiter.agent(agent.id, context.switchToHttp().getResponse<Response>());
    // Written at most once a minute, so a busy agent costs no extra round trip per request.
    if (!agent.last_used_at || Date.now() - agent.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.agents.touch(agent.workspace_id, agent.id);
      agent.last_used_at = new Date();
    }
    req.agent = agent;
    return true;
  }

  /** The digest comparison, once per key while its row stays cached. */
  private matches(lookup: string, agent: KeyedAgent, key: string): boolean {
    if (this.keyCache.verified(lookup, agent, key)) return true;
    if (!verifySecret(key, agent.key_digest)) return false;
    this.keyCache.markVerified(lookup, agent, key);
    return true;
  }
}

/** The agent AgentKeyGuard authenticated for this request. */
export const CurrentAgent = createParamDecorator(
  (_: unknown, context: ExecutionContext): Agent => context.switchToHttp().getRequest<AgentRequest>().agent as Agent,
);

/** A controller of `control/v1/agent/<resource>`, reached with an agent's key; the OpenAPI tag is "agent <resource in words>". */
export const AgentRoutes = (resource: string) =>
  applyDecorators(ApiTags(`agent ${resource.replace(/_/g, ' ')}`), ApiBearerAuth('agent_key'), UseGuards(AgentKeyGuard), Controller(`control/v1/agent/${resource}`));
