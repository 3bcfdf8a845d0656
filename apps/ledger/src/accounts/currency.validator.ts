import { applyDecorators } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';
import { CURRENCY_PATTERN } from './currencies';

/** A currency name (fiat, token, POINTS): letters, digits and `_.:-`, up to 32. */
export const IsCurrency = () => applyDecorators(IsString(), Matches(CURRENCY_PATTERN));
