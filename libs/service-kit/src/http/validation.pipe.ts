import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailed } from '@bursar/errors';

function collect(errors: ValidationError[], prefix: string, into: Record<string, string[]>): Record<string, string[]> {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) into[path] = Object.values(e.constraints);
    if (e.children?.length) collect(e.children, path, into);
  }
  return into;
}

/** DTO validation: unknown fields refused, values transformed, failures reported per field path. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new ValidationFailed(collect(errors, '', {})),
  });
}
