import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** `*`, an exact type (`transaction.created`) or a family (`transaction.*`). */
export const EVENT_PATTERN = /^(\*|[a-z][a-z_]*(\.[a-z][a-z_]*)*(\.\*)?)$/;

/** `enabled_events`: empty (or absent at creation) means every event. */
export function EnabledEventsField() {
  return applyDecorators(
    ApiPropertyOptional({
      type: [String],
      description: 'Event types to receive: exact names, `family.*` or `*`; empty means every event',
      example: ['transaction.created', 'account.*'],
    }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    Matches(EVENT_PATTERN, { each: true, message: 'each enabled_events entry must be an event type, `family.*` or `*`' }),
  );
}

export function DescriptionField() {
  return applyDecorators(ApiPropertyOptional({ maxLength: 1000, nullable: true }), IsOptional(), IsString(), MaxLength(1000));
}
