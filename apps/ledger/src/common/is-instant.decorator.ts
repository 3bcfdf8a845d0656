import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { buildMessage, IsISO8601, IsOptional, ValidateBy } from 'class-validator';

/**
 * An ISO 8601 date-time that JavaScript's Date can read. class-validator's strict ISO check also
 * passes forms Date cannot parse (the ordinal date `3985213`: year 3985, day 213), which then
 * reached the SQL as an invalid date and answered 500 instead of 422.
 */
export function IsInstant(): PropertyDecorator {
  return applyDecorators(
    IsISO8601({ strict: true }),
    ValidateBy({
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && Number.isFinite(Date.parse(value)),
        defaultMessage: buildMessage((each) => `${each}$property must be an ISO 8601 date-time`),
      },
    }),
  );
}

/** An optional date-time field, documented as one. */
export function OptionalInstant(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ format: 'date-time', description }), IsOptional(), IsInstant());
}
