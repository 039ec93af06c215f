// The list + drawer form + delete-confirm page shared by models, skills and agents.
import { useState, type ReactNode } from 'react';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import type { StudioRecord } from '../api-types';
import { formatDate } from '../format';
import { ConfirmDialog } from './confirm-dialog';
import { Drawer } from './drawer';
import { PageHeader } from './page-header';
import { EmptyState, ErrorState, Loading } from './states';
import { SystemBadge } from './badge';
import { useToast } from './toast';

export interface Column<T> {
  header: string;
  cell: (record: T) => ReactNode;
  className?: string;
}

export interface ResourceFormProps<T> {
  record: T | null;
  readOnly: boolean;
  onDone: (saved?: T) => void;
}

export function ResourcePage<T extends StudioRecord>({
  title,
  subtitle,
  noun,
  testId,
  query,
  columns,
  nameOf,
  Form,
  deleteMutation,
  emptyText,
}: {
  title: string;
  subtitle?: ReactNode;
  noun: string;
  testId: string;
  query: UseQueryResult<T[]>;
  columns: Column<T>[];
  nameOf: (r: T) => string;
  Form: (props: ResourceFormProps<T>) => ReactNode;
  deleteMutation: UseMutationResult<void, Error, number>;
  emptyText: ReactNode;
}) {
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const toast = useToast();

  const record = editing === 'new' ? null : editing;
  const readOnly = !!record?.is_system;
  const drawerTitle =
    editing === 'new' ? `New ${noun}` : record ? `${readOnly ? 'View' : 'Edit'} ${noun}: ${nameOf(record)}` : '';

  const newButton = (
    <button type="button" className="btn btn-primary" onClick={() => setEditing('new')} data-testid={`${testId}-new`}>
      New {noun}
    </button>
  );

  return (
    <div className="page" data-testid={`${testId}-page`}>
      <PageHeader title={title} subtitle={subtitle} actions={newButton} />
      {query.isPending ? (
        <Loading label={`Loading ${title.toLowerCase()}…`} />
      ) : query.isError ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={`No ${lowerFirst(title)} yet`} action={newButton}>
          {emptyText}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid={`${testId}-table`}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.header} scope="col" className={c.className}>
                    {c.header}
                  </th>
                ))}
                <th scope="col">Updated</th>
                <th scope="col" className="col-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {query.data.map((r) => (
                <tr key={r.id} data-testid={`${testId}-row`} data-name={nameOf(r)}>
                  {columns.map((c, i) => (
                    <td key={c.header} className={c.className}>
                      {c.cell(r)}
                      {i === 0 && r.is_system && (
                        <>
                          {' '}
                          <SystemBadge />
                        </>
                      )}
                    </td>
                  ))}
                  <td className="muted nowrap">{formatDate(r.updated_at)}</td>
                  <td className="col-actions">
                    <div className="row-actions">
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => setEditing(r)}
                        aria-label={`${r.is_system ? 'View' : 'Edit'} ${noun} ${nameOf(r)}`}
                        data-testid={`${testId}-edit`}
                      >
                        {r.is_system ? 'View' : 'Edit'}
                      </button>
                      {!r.is_system && (
                        <button
                          type="button"
                          className="btn btn-small btn-danger-ghost"
                          onClick={() => {
                            deleteMutation.reset();
                            setDeleting(r);
                          }}
                          aria-label={`Delete ${noun} ${nameOf(r)}`}
                          data-testid={`${testId}-delete`}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Drawer open={editing !== null} title={drawerTitle} onClose={() => setEditing(null)} testId={`${testId}-drawer`}>
        {editing !== null && (
          <Form
            key={record ? record.id : 'new'}
            record={record}
            readOnly={readOnly}
            onDone={(saved) => {
              setEditing(null);
              if (saved) toast.show(`${noun.charAt(0).toUpperCase()}${noun.slice(1)} “${nameOf(saved)}” saved`);
            }}
          />
        )}
      </Drawer>

      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${noun} “${deleting ? nameOf(deleting) : ''}”?`}
        pending={deleteMutation.isPending}
        error={deleteMutation.error}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          const name = nameOf(deleting);
          deleteMutation.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null);
              toast.show(`Deleted “${name}”`);
            },
          });
        }}
      >
        <p>This cannot be undone. Records that use it must be changed first.</p>
      </ConfirmDialog>
    </div>
  );
}

/** The submit/cancel row at the bottom of a resource form. */
export function FormActions({
  readOnly,
  pending,
  onCancel,
  submitLabel = 'Save',
}: {
  readOnly: boolean;
  pending: boolean;
  onCancel: () => void;
  submitLabel?: string;
}) {
  return (
    <div className="form-actions">
      {readOnly ? (
        <>
          <p className="muted">System records are read-only.</p>
          <button type="button" className="btn" onClick={onCancel}>
            Close
          </button>
        </>
      ) : (
        <>
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={pending} data-testid="form-save">
            {pending ? 'Saving…' : submitLabel}
          </button>
        </>
      )}
    </div>
  );
}

/** "Models" → "models", but an acronym stays: "MCP servers". */
function lowerFirst(title: string): string {
  return /^[A-Z][a-z]/.test(title) ? title[0].toLowerCase() + title.slice(1) : title;
}
