// Captures an ApiError from a form submit: field errors beside the fields, the rest at the top.
import { useCallback, useState } from 'react';
import { errorMessage, isApiError } from './http';

export function useFormErrors() {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);

  const capture = useCallback((e: unknown) => {
    if (isApiError(e) && e.errors.length > 0) {
      setFieldErrors(e.fieldErrors());
      setGeneral(e.detail && e.detail !== e.title ? e.detail : 'Please correct the highlighted fields.');
    } else {
      setFieldErrors({});
      setGeneral(errorMessage(e));
    }
  }, []);

  const clear = useCallback(() => {
    setFieldErrors({});
    setGeneral(null);
  }, []);

  return { fieldErrors, general, capture, clear, setFieldErrors };
}
