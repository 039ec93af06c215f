// The data router. Basename is "/" so one bundle serves both /studio/* (login required) and the
// public /demo page; Vite's `base` stays /studio/ for assets only.
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { LoginPage } from '../features/auth/components/login-page';
import { OverviewPage } from '../features/overview/components/overview-page';
import { McpServersPage } from '../features/mcp-servers/components/mcp-servers-page';
import { ModelsPage } from '../features/models/components/models-page';
import { SkillsPage } from '../features/skills/components/skills-page';
import { AgentsPage } from '../features/agents/components/agents-page';
import { WorkflowsPage } from '../features/workflows/components/workflows-page';
import { loginPath, setUnauthorizedHandler } from '../shared/http';
import { queryClient } from './query-client';
import { RequireAuth } from './require-auth';
import { RouteError } from './route-error';
import { Shell } from './shell';
import { NotFound } from './not-found';
import { Loading } from '../shared/components/states';

// Shown while a lazily loaded page's code arrives on the first load.
const pageFallback = (
  <div className="fullscreen-center">
    <Loading />
  </div>
);

export const router = createBrowserRouter([
  { path: '/', element: <Navigate to="/studio" replace /> },
  { path: '/studio/login', element: <LoginPage />, errorElement: <RouteError /> },
  {
    path: '/demo',
    lazy: () => import('../features/demo/components/demo-page').then((m) => ({ Component: m.DemoPage })),
    hydrateFallbackElement: pageFallback,
    errorElement: <RouteError />,
  },
  {
    path: '/studio',
    element: (
      <RequireAuth>
        <Shell />
      </RequireAuth>
    ),
    errorElement: <RouteError />,
    hydrateFallbackElement: pageFallback,
    children: [
      { index: true, element: <OverviewPage /> },
      { path: 'models', element: <ModelsPage /> },
      { path: 'skills', element: <SkillsPage /> },
      { path: 'agents', element: <AgentsPage /> },
      { path: 'mcp-servers', element: <McpServersPage /> },
      { path: 'workflows', element: <WorkflowsPage /> },
      {
        path: 'tokens',
        lazy: () => import('../features/account/components/tokens-page').then((m) => ({ Component: m.TokensPage })),
        hydrateFallbackElement: pageFallback,
      },
      {
        path: 'users',
        lazy: () => import('../features/account/components/users-page').then((m) => ({ Component: m.UsersPage })),
        hydrateFallbackElement: pageFallback,
      },
      {
        path: 'workflows/:id',
        lazy: () =>
          import('../features/workflows/components/workflow-editor-page').then((m) => ({
            Component: m.WorkflowEditorPage,
          })),
        hydrateFallbackElement: pageFallback,
      },
      {
        path: 'workflows/:id/run',
        lazy: () => import('../features/run/components/run-page').then((m) => ({ Component: m.RunPage })),
        hydrateFallbackElement: pageFallback,
      },
      { path: '*', element: <NotFound /> },
    ],
  },
  { path: '*', element: <NotFound standalone /> },
]);

// A 401 from any studio call (an expired session) goes to the login page and comes back after.
setUnauthorizedHandler((next) => {
  queryClient.clear();
  void router.navigate(loginPath(next), { replace: true });
});
