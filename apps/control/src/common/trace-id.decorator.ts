import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The request id doubles as the audit trace id of writes that carry no trace of their own. */
export const TraceId = createParamDecorator(
  (_: unknown, context: ExecutionContext): string => String(context.switchToHttp().getRequest<Request>().id),
);
