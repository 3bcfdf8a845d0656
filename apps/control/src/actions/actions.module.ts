import { Module } from '@nestjs/common';
import { registerFastValidator } from '@bursar/service-kit';
import { DecisionsModule } from '../decisions/decisions.module';
import { AgentActionsController } from './agent-actions.controller';
import { ActionRequestDto } from './dto/action-request.dto';
import { acceptActionRequest } from './dto/action-request.validator';

@Module({ imports: [DecisionsModule], controllers: [AgentActionsController] })
export class ActionsModule {
  constructor() {
    registerFastValidator(ActionRequestDto, acceptActionRequest);
  }
}
