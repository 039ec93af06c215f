// /studio/users — admins only: the accounts of this studio, add one, delete one (and, when asked,
// everything it owns). Anyone else gets the API's 403, shown as such.
import { useState, type FormEvent } from 'react';
import type { UserRecord } from '../../../shared/api-types';
import { Badge } from '../../../shared/components/badge';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { Field } from '../../../shared/components/field';
import { PageHeader } from '../../../shared/components/page-header';
import { ErrorState, Loading } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { formatDate } from '../../../shared/format';
import { errorMessage, isApiError } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useMe } from '../../auth/hooks/use-auth';
import { useCreateUser, useDeleteUser, useUpdateUser, useUsers } from '../hooks/use-account';

function NewUserForm() {
  const create = useCreateUser();
  const toast = useToast();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const fields = isApiError(create.error) ? create.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { username: username.trim(), password, is_admin: admin },
      {
        onSuccess: (u) => {
          toast.show(`Added “${u.username}”`);
          setUsername('');
          setPassword('');
          setAdmin(false);
        },
      },
    );
  };
  return (
    <form className="panel inline-form" onSubmit={submit} data-testid="user-form">
      <Field label="Username" required error={fields.username}>
        <input
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          autoComplete="off"
          data-testid="user-name"
        />
      </Field>
      <Field label="Password" required hint="8 to 256 characters." error={fields.password}>
        <input
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          data-testid="user-password"
        />
      </Field>
      <label className="checkbox">
        <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} data-testid="user-admin" />{' '}
        Administrator
      </label>
      <button
        type="submit"
        className="btn btn-primary"
        disabled={!username.trim() || !password || create.isPending}
        data-testid="user-create"
      >
        Add user
      </button>
      {create.error && Object.keys(fields).length === 0 && (
        <p className="field-error" role="alert" data-testid="user-form-error">
          {errorMessage(create.error)}
        </p>
      )}
    </form>
  );
}

export function UsersPage() {
  useDocumentTitle('Users');
  const me = useMe();
  const users = useUsers();
  const del = useDeleteUser();
  const toast = useToast();
  const [deleting, setDeleting] = useState<UserRecord | null>(null);
  const update = useUpdateUser();
  const [resetting, setResetting] = useState<UserRecord | null>(null);
  const [newPassword, setNewPassword] = useState('');
  const setRole = (u: UserRecord) =>
    update.mutate(
      { id: u.id, is_admin: !u.is_admin },
      {
        onSuccess: (r) =>
          toast.show(`${r.username} is ${r.is_admin ? 'now an administrator' : 'no longer an administrator'}`),
        onError: (e) => toast.show(errorMessage(e), 'error'),
      },
    );
  // a refused delete (the user owns records) offers to delete them too, said plainly
  const ownsRecords = isApiError(del.error) && del.error.code === 'user.owns_records';

  if (users.isError && isApiError(users.error) && users.error.status === 403)
    return (
      <div className="page" data-testid="users-page">
        <ErrorState title="Administrators only" error={new Error('Only an administrator can manage users.')} />
      </div>
    );
  return (
    <div className="page" data-testid="users-page">
      <PageHeader title="Users" subtitle="Everyone who can sign in to this studio. Each sees only their own records." />
      <NewUserForm />
      {users.isPending ? (
        <Loading label="Loading users…" />
      ) : users.isError ? (
        <ErrorState error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <div className="table-wrap">
          <table className="table account-table" data-testid="users-table">
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col" className="col-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id} data-testid="user-row" data-username={u.username}>
                  <td>
                    {u.username} {u.id === me.data?.id && <span className="muted small">(you)</span>}
                  </td>
                  <td>{u.is_admin ? <Badge kind="info">Administrator</Badge> : 'User'}</td>
                  <td className="muted nowrap">{formatDate(u.created_at)}</td>
                  <td className="col-actions">
                    {u.id !== me.data?.id && (
                      <div className="row-actions">
                        <button
                          type="button"
                          className="btn btn-small"
                          onClick={() => setRole(u)}
                          disabled={update.isPending}
                          data-testid="user-role"
                        >
                          {u.is_admin ? 'Remove admin' : 'Make admin'}
                        </button>
                        <button
                          type="button"
                          className="btn btn-small"
                          onClick={() => {
                            update.reset();
                            setNewPassword('');
                            setResetting(u);
                          }}
                          data-testid="user-reset"
                        >
                          Set password
                        </button>
                        <button
                          type="button"
                          className="btn btn-small btn-danger-ghost"
                          onClick={() => {
                            del.reset();
                            setDeleting(u);
                          }}
                          aria-label={`Delete user ${u.username}`}
                          data-testid="user-delete"
                        >
                          Delete
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={resetting !== null}
        title={`Set a new password for “${resetting?.username ?? ''}”`}
        confirmLabel="Set password"
        danger={false}
        pending={update.isPending}
        error={update.error}
        onCancel={() => setResetting(null)}
        onConfirm={() => {
          if (!resetting || newPassword.length < 8) return;
          const name = resetting.username;
          update.mutate(
            { id: resetting.id, password: newPassword },
            {
              onSuccess: () => {
                setResetting(null);
                toast.show(`New password set for “${name}”`);
              },
            },
          );
        }}
      >
        <Field label="New password" hint="8 to 256 characters. Their sessions and access tokens end.">
          <input
            type="password"
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
            autoComplete="new-password"
            data-testid="user-new-password"
          />
        </Field>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the user “${deleting?.username ?? ''}”?`}
        confirmLabel={ownsRecords ? 'Delete the user and everything they own' : 'Delete'}
        pending={del.isPending}
        error={ownsRecords ? null : del.error}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          const name = deleting.username;
          del.mutate(
            { id: deleting.id, cascade: ownsRecords },
            {
              onSuccess: () => {
                setDeleting(null);
                toast.show(`Deleted “${name}”`);
              },
            },
          );
        }}
      >
        <p>They can no longer sign in, and their access tokens stop working.</p>
        {ownsRecords && isApiError(del.error) && (
          <p className="field-error" role="alert" data-testid="user-owns">
            {(del.error.detail ?? '').replace(/ Delete with \?cascade=true.*$/, '')} Deleting the user deletes these
            too.
          </p>
        )}
      </ConfirmDialog>
    </div>
  );
}
