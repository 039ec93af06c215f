import { QueryClient } from '@tanstack/react-query';
import { isApiError } from '../shared/http';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      // Client errors (401/403/404/409…) will not fix themselves; retry only network/5xx once.
      retry: (count, error) => count < 1 && !(isApiError(error) && error.status >= 400 && error.status < 500),
    },
  },
});
