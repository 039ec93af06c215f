import { Link } from 'react-router-dom';
import { useDocumentTitle } from '../shared/use-document-title';

export function NotFound({ standalone }: { standalone?: boolean }) {
  useDocumentTitle('Not found');
  const body = (
    <div className="state state-empty" data-testid="not-found">
      <strong>Page not found</strong>
      <p>The page you asked for does not exist or you do not have access to it.</p>
      <Link className="btn btn-primary" to="/studio">
        Go to the studio
      </Link>
    </div>
  );
  return standalone ? <main className="fullscreen-center">{body}</main> : <div className="page">{body}</div>;
}
