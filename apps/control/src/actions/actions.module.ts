import { Module } from '@nestjs/common';
import { DecisionsModule } from '../decisions/decisions.module';
import { AgentActionsController } from './agent-actions.controller';

@Module({ imports: [DecisionsModule], controllers: [AgentActionsController] })
export class ActionsModule {}
