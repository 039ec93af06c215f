import { ValidateIf } from 'class-validator';

/** The field may be absent; when present it is validated — `null` is not a way to skip validation. */
export const Optional = () => ValidateIf((_obj, value) => value !== undefined);
