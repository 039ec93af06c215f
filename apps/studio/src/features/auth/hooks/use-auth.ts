import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import type { Credentials } from '../../../shared/api-types';
import { authApi, authKeys } from '../api/auth-api';

/** The logged-in user; `data` is undefined and `error.status === 401` when signed out. */
export function useMe() {
  return useQuery({
    queryKey: authKeys.me(),
    queryFn: ({ signal }) => authApi.me(signal),
    retry: false,
    staleTime: 60_000,
  });
}

/** Whether the server has no user yet (the login page then opens on the owner-account form). */
export function useSetupState() {
  return useQuery({
    queryKey: authKeys.setup(),
    queryFn: ({ signal }) => authApi.setupState(signal),
    retry: false,
    staleTime: 30_000,
  });
}

export function useLogin(mode: 'login' | 'setup') {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (c: Credentials) => (mode === 'login' ? authApi.login(c) : authApi.setup(c)),
    onSuccess: (user) => {
      qc.clear();
      qc.setQueryData(authKeys.me(), user);
    },
  });
}

export function useLogout() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => authApi.logout(),
    onSettled: () => {
      qc.clear();
      void navigate('/studio/login', { replace: true });
    },
  });
}
