import { ValidateBy, ValidationOptions } from 'class-validator';
import { isMinorUnits, MAX_AMOUNT_DIGITS } from './money';

/**
 * An amount of minor units: a digit string (any size up to MAX_AMOUNT_DIGITS digits) or a safe
 * integer, at least `min`. Floats and negative values are refused.
 */
export function IsMinorUnits(min: 0 | 1, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMinorUnits',
      validator: {
        validate: (value) => isMinorUnits(value, BigInt(min)),
        defaultMessage: (args) =>
          `${args?.property ?? 'amount'} must be a string of digits (integer minor units, at most ${MAX_AMOUNT_DIGITS} digits) of at least ${min}`,
      },
    },
    options,
  );
}
