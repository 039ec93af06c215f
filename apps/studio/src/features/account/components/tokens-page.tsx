// /studio/tokens — personal access tokens for integrations (`Authorization: Bearer …`): create one (its
// value is shown once, only a hash is stored), see when each was last used, revoke it.
import { useState, type FormEvent } from 'react';
import type { AccessToken, CreatedAccessToken } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { Field } from '../../../shared/components/field';
import { PageHeader } from '../../../shared/components/page-header';
import { EmptyState, ErrorState, Loading } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { formatDate } from '../../../shared/format';
import { errorMessage } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useCreateToken, useRevokeToken, useTokens } from '../hooks/use-account';

function NewToken({ created, onDone }: { created: CreatedAccessToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard?.writeText(created.token).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <Alert
      kind="success"
      testId="token-created"
      title={`Token “${created.name}” created: copy it now, it is not shown again`}
      action={
        <button type="button" className="btn btn-small" onClick={onDone}>
          Done
        </button>
      }
    >
      <div className="token-value">
        <code data-testid="token-value">{created.token}</code>
        <button type="button" className="btn btn-small" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="muted small">
        Send it as <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
    </Alert>
  );
}

export function TokensPage() {
  useDocumentTitle('Access tokens');
  const tokens = useTokens();
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const toast = useToast();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
  const [revoking, setRevoking] = useState<AccessToken | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    create.mutate(name.trim(), {
      onSuccess: (t) => {
        setCreated(t);
        setName('');
      },
    });
  };

  return (
    <div className="page" data-testid="tokens-page">
      <PageHeader
        title="Access tokens"
        subtitle="Personal tokens let scripts and integrations call the API as you, wherever a session works."
      />
      {created && <NewToken created={created} onDone={() => setCreated(null)} />}
      <form className="panel inline-form" onSubmit={submit} data-testid="token-form">
        <Field
          label="New token name"
          hint="What will use it, e.g. “CI pipeline”."
          error={create.error ? errorMessage(create.error) : undefined}
        >
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} data-testid="token-name" />
        </Field>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || create.isPending}
          data-testid="token-create"
        >
          Create token
        </button>
      </form>
      {tokens.isPending ? (
        <Loading label="Loading tokens…" />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No tokens yet">Create one above for each script or integration.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="tokens-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col" className="col-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id} data-testid="token-row" data-name={t.name}>
                  <td>{t.name}</td>
                  <td className="muted nowrap">{formatDate(t.created_at)}</td>
                  <td className="muted nowrap">{t.last_used_at ? formatDate(t.last_used_at) : 'never'}</td>
                  <td className="col-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-danger-ghost"
                      onClick={() => {
                        revoke.reset();
                        setRevoking(t);
                      }}
                      aria-label={`Revoke token ${t.name}`}
                      data-testid="token-revoke"
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the token “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke"
        pending={revoke.isPending}
        error={revoke.error}
        onCancel={() => setRevoking(null)}
        onConfirm={() => {
          if (!revoking) return;
          const n = revoking.name;
          revoke.mutate(revoking.id, {
            onSuccess: () => {
              setRevoking(null);
              toast.show(`Revoked “${n}”`);
            },
          });
        }}
      >
        <p>Anything still using it will get “401 Unauthorized” from now on.</p>
      </ConfirmDialog>
    </div>
  );
}
