import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional } from 'class-validator';

/** The caller's own keys on a resource: any JSON object, stored as sent. */
export function OptionalMetadata(description?: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ type: 'object', additionalProperties: true, description }), IsOptional(), IsObject());
}
