import { Global, Module } from '@nestjs/common';
import { AgentKeyCache } from './agent-key-cache';

/** Global, so whatever changes agents in bulk (workspace deletion) can drop their cached keys. */
@Global()
@Module({ providers: [AgentKeyCache], exports: [AgentKeyCache] })
export class AgentKeyCacheModule {}
