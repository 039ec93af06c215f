// Gate for /studio/*: resolves the session with GET /auth/me, else sends to the login page with `next`.
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useMe } from '../features/auth/hooks/use-auth';
import { ErrorState, Loading } from '../shared/components/states';
import { isApiError, loginPath } from '../shared/http';

export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) {
    return (
      <div className="fullscreen-center">
        <Loading label="Checking your session…" />
      </div>
    );
  }
  if (me.isError) {
    if (isApiError(me.error) && me.error.status === 401) {
      return <Navigate to={loginPath(location.pathname + location.search)} replace />;
    }
    return (
      <div className="fullscreen-center">
        <ErrorState error={me.error} onRetry={() => void me.refetch()} title="Cannot reach the server" />
      </div>
    );
  }
  return <>{children}</>;
}
