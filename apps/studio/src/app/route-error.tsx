// Shown when a route throws while rendering or loading a lazy chunk (e.g. after a redeploy).
import { isRouteErrorResponse, Link, useRouteError } from 'react-router-dom';

export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : 'Unexpected error';
  return (
    <main className="fullscreen-center">
      <div className="state state-error" role="alert" data-testid="route-error">
        <strong>This page failed to load</strong>
        <p>{message}</p>
        <div className="row-actions">
          <button type="button" className="btn" onClick={() => window.location.reload()}>
            Reload
          </button>
          <Link className="btn btn-primary" to="/studio">
            Studio home
          </Link>
        </div>
      </div>
    </main>
  );
}
