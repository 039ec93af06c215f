// Server state of the account pages (TanStack Query): tokens and users, refetched after each change.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { accountApi, accountKeys, type NewUser } from '../api/account-api';

export function useTokens() {
  return useQuery({ queryKey: accountKeys.tokens(), queryFn: ({ signal }) => accountApi.tokens(signal) });
}

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => accountApi.createToken(name),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}

export function useRevokeToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => accountApi.revokeToken(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}

export function useUsers() {
  return useQuery({ queryKey: accountKeys.users(), queryFn: ({ signal }) => accountApi.users(signal) });
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: NewUser) => accountApi.createUser(input),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.users() }),
  });
}

export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...patch }: { id: number; password?: string; is_admin?: boolean }) =>
      accountApi.updateUser(id, patch),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.users() }),
  });
}

export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, cascade }: { id: number; cascade: boolean }) => accountApi.deleteUser(id, cascade),
    onSuccess: () => qc.invalidateQueries({ queryKey: accountKeys.users() }),
  });
}
