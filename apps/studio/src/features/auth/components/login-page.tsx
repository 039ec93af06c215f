// /studio/login — sign in, or create the owner account on a fresh install (POST /auth/setup, 409 once
// any user exists). After success, go to `next`.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor } from '../../../shared/components/field';
import { isApiError, errorMessage, safeNext } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useLogin, useSetupState } from '../hooks/use-auth';

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const [mode, setMode] = useState<'login' | 'setup'>('login');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const login = useLogin(mode);
  const userRef = useRef<HTMLInputElement>(null);
  // A fresh install (no user yet) opens on the owner-account form, unless the user already chose a mode.
  const setupState = useSetupState();
  const chosen = useRef(false);
  const needsSetup = setupState.data?.needed === true;
  useEffect(() => {
    if (needsSetup && !chosen.current) setMode('setup');
  }, [needsSetup]);

  useDocumentTitle(mode === 'login' ? 'Sign in' : 'Create the owner account');

  const switchMode = (m: 'login' | 'setup') => {
    chosen.current = true;
    setMode(m);
    setLocalError(null);
    login.reset();
    userRef.current?.focus();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLocalError(null);
    if (mode === 'setup') {
      if (password.length < 8) return setLocalError('Use at least 8 characters for the password.');
      if (password !== confirm) return setLocalError('The two passwords do not match.');
    }
    login.mutate({ username: username.trim(), password }, { onSuccess: () => void navigate(next, { replace: true }) });
  };

  const err = login.error;
  const fieldErrors = isApiError(err) ? err.fieldErrors() : {};
  let message: string | null = localError;
  let ownerExists = false;
  if (!message && err) {
    if (isApiError(err) && mode === 'setup' && err.status === 409) {
      ownerExists = true;
      message = 'An owner account already exists on this server. Sign in with it instead.';
    } else if (isApiError(err) && err.status === 401) {
      message = 'Wrong username or password.';
    } else if (isApiError(err) && err.status === 429) {
      message = 'Too many attempts. Wait a minute and try again.';
    } else if (!(isApiError(err) && err.errors.length > 0)) {
      message = errorMessage(err);
    }
  }

  return (
    <main className="auth-screen">
      <div className="auth-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          <span>Agentic Workflow Studio</span>
        </div>
        <h1>{mode === 'login' ? 'Sign in' : 'Create the owner account'}</h1>
        <p className="muted">
          {mode === 'login'
            ? 'Design agents and workflows, then run them on your projects.'
            : 'First run only: this account becomes the administrator of this server.'}
        </p>
        {message && (
          <Alert
            kind={ownerExists ? 'warning' : 'error'}
            testId="login-error"
            action={
              ownerExists ? (
                <button type="button" className="btn btn-small" onClick={() => switchMode('login')}>
                  Sign in
                </button>
              ) : undefined
            }
          >
            {message}
          </Alert>
        )}
        <form onSubmit={submit} className="form" data-testid="login-form" noValidate>
          <Field label="Username" error={errorFor(fieldErrors, 'username')} required>
            <input
              ref={userRef}
              name="username"
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              required
              autoFocus
              data-testid="login-username"
            />
          </Field>
          <Field
            label="Password"
            error={errorFor(fieldErrors, 'password')}
            hint={mode === 'setup' ? '8 to 256 characters.' : undefined}
            required
          >
            <input
              name="password"
              type="password"
              autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
              data-testid="login-password"
            />
          </Field>
          {mode === 'setup' && (
            <Field label="Repeat password" required>
              <input
                name="confirm"
                type="password"
                autoComplete="new-password"
                value={confirm}
                onChange={(e) => setConfirm(e.target.value)}
                required
                data-testid="login-password-confirm"
              />
            </Field>
          )}
          <button
            type="submit"
            className="btn btn-primary btn-block"
            disabled={login.isPending || !username.trim() || !password}
            data-testid="login-submit"
          >
            {login.isPending ? 'Please wait…' : mode === 'login' ? 'Sign in' : 'Create account and sign in'}
          </button>
        </form>
        <div className="auth-switch">
          {mode === 'login' ? (
            // offered only while the server has no user yet (GET /auth/setup → needed)
            needsSetup && (
              <button type="button" className="btn-link" onClick={() => switchMode('setup')} data-testid="setup-mode">
                First run? Create the owner account
              </button>
            )
          ) : (
            <button type="button" className="btn-link" onClick={() => switchMode('login')} data-testid="login-mode">
              I already have an account
            </button>
          )}
          <Link className="btn-link" to="/demo">
            Try the public demo
          </Link>
        </div>
      </div>
    </main>
  );
}
