import { Module } from '@nestjs/common';
import { DecisionsModule } from '../decisions/decisions.module';
import { AgentPaymentIntentsController } from './agent-payment-intents.controller';

@Module({ imports: [DecisionsModule], controllers: [AgentPaymentIntentsController] })
export class PaymentIntentsModule {}
