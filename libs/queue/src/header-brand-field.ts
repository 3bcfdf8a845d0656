import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { WEBHOOK_BRAND_PATTERN } from './webhook-settings';

/** Describes an endpoint's `header_brand` in both services' schemas. */
export const HEADER_BRAND_DESCRIPTION =
  "Prefix of this endpoint's delivery headers: <brand>-Signature, <brand>-Event-Id, <brand>-Delivery-Id " +
  "(e.g. the header names a receiver written for another product reads). null: the deployment's WEBHOOK_BRAND";

/** `header_brand` on endpoint writes: one header-safe word, or null for the deployment's WEBHOOK_BRAND. */
export function HeaderBrandField() {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, pattern: WEBHOOK_BRAND_PATTERN.source, example: 'Acme', description: HEADER_BRAND_DESCRIPTION }),
    IsOptional(),
    IsString(),
    Matches(WEBHOOK_BRAND_PATTERN, { message: 'header_brand must be one header-safe word: a letter, then up to 31 letters or digits' }),
  );
}
