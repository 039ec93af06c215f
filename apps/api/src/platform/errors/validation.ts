/** ValidationPipe settings: unknown fields rejected, errors flattened to [{field, message}]. */
import { ValidationError, ValidationPipe } from '@nestjs/common';
import { invalid, type FieldProblem } from './domain-error';

export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const field = prefix
      ? /^\d+$/.test(e.property)
        ? `${prefix}[${e.property}]`
        : `${prefix}.${e.property}`
      : e.property;
    for (const [rule, message] of Object.entries(e.constraints ?? {})) {
      out.push({ field, message: rule === 'whitelistValidation' ? `${field} is not a known field` : message });
    }
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, field));
  }
  return out;
}

export function createValidationPipe() {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalid(flattenValidationErrors(errors)),
  });
}
