import type { ReactNode } from 'react';

export function Badge({
  kind = 'neutral',
  children,
  title,
}: {
  kind?: 'neutral' | 'system' | 'info' | 'warning' | 'error' | 'success';
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={`badge badge-${kind}`} title={title}>
      {children}
    </span>
  );
}

export function SystemBadge() {
  return (
    <Badge kind="system" title="Provided by the service; read-only">
      System
    </Badge>
  );
}
