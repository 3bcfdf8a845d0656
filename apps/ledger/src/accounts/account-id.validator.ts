import { applyDecorators } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';
import { ACCOUNT_ID_PATTERN } from './account-kinds';

/** An account id as callers choose them (letters, digits and `_:.-`, up to 255). */
export const IsAccountId = () => applyDecorators(IsString(), Matches(ACCOUNT_ID_PATTERN));
