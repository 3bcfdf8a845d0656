import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional } from 'class-validator';
import { PLAN_IDS, PlanId } from '../billing-plans';

export class CheckoutDto {
  @ApiPropertyOptional({
    enum: PLAN_IDS,
    description:
      'Plan to buy or move to. Optional because the contract lists only `email`: when omitted, the current paid plan ' +
      '(so a subscribed workspace is unchanged) or else `build`. Naming the current plan while a cancellation is pending ' +
      'resumes the subscription. `sandbox` is free (422: cancel instead); a plan without ' +
      'a provider price (`enterprise` by default) is 422.',
  })
  @IsOptional()
  @IsIn(PLAN_IDS)
  plan?: PlanId;

  @ApiPropertyOptional({ description: "Billing email for a new customer; defaults to the identity token's email" })
  @IsOptional()
  @IsEmail()
  email?: string;
}
