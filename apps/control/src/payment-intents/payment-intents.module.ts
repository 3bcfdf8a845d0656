import { Module } from '@nestjs/common';
import { registerFastValidator } from '@bursar/service-kit';
import { DecisionsModule } from '../decisions/decisions.module';
import { AgentPaymentIntentsController } from './agent-payment-intents.controller';
import { PaymentRequestDto, PaymentSimulationDto } from './dto/payment-request.dto';
import { acceptPaymentRequest, acceptPaymentSimulation } from './dto/payment-request.validator';

@Module({ imports: [DecisionsModule], controllers: [AgentPaymentIntentsController] })
export class PaymentIntentsModule {
  constructor() {
    registerFastValidator(PaymentRequestDto, acceptPaymentRequest);
    registerFastValidator(PaymentSimulationDto, acceptPaymentSimulation);
  }
}
