// The studio layout: left navigation with the product name, the current user and logout.
import { useState } from 'react';
import { NavLink, Outlet } from 'react-router-dom';
import { useLogout, useMe } from '../features/auth/hooks/use-auth';
import { Icon } from '../shared/components/icon';
import { PRODUCT_NAME } from '../shared/use-document-title';

const NAV = [
  { to: '/studio', label: 'Overview', end: true, icon: 'overview' },
  { to: '/studio/models', label: 'Models', icon: 'model' },
  { to: '/studio/skills', label: 'Skills', icon: 'skill' },
  { to: '/studio/agents', label: 'Agents', icon: 'agent' },
  { to: '/studio/mcp-servers', label: 'MCP servers', icon: 'tool' },
  { to: '/studio/workflows', label: 'Workflows', icon: 'workflow' },
  { to: '/studio/tokens', label: 'Access tokens', icon: 'lock', testId: 'tokens' },
  { to: '/studio/users', label: 'Users', icon: 'agent', admin: true },
];

export function Shell() {
  const me = useMe();
  const logout = useLogout();
  // The navigation can shrink to its icons, leaving the width to the canvas (remembered per browser).
  const [collapsed, setCollapsed] = useState(() => {
    try {
      return localStorage.getItem('studio.nav.collapsed') === '1';
    } catch {
      return false;
    }
  });
  const toggle = () =>
    setCollapsed((c) => {
      try {
        localStorage.setItem('studio.nav.collapsed', c ? '0' : '1');
      } catch {
        // storage unavailable: the choice lasts for this page only
      }
      return !c;
    });
  return (
    <div className={`shell${collapsed ? ' nav-collapsed' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidenav" aria-label="Studio">
        <NavLink to="/studio" className="brand" end>
          <span className="brand-mark" aria-hidden="true" />
          <span className="nav-label">{PRODUCT_NAME}</span>
        </NavLink>
        <button
          type="button"
          className="nav-collapse"
          onClick={toggle}
          aria-pressed={collapsed}
          aria-label={collapsed ? 'Expand the navigation' : 'Collapse the navigation'}
          title={collapsed ? 'Expand the navigation' : 'Collapse the navigation'}
          data-testid="nav-collapse"
        >
          {collapsed ? '»' : '«'}
        </button>
        <ul className="nav-list">
          {NAV.filter((n) => !('admin' in n) || me.data?.is_admin).map((n) => (
            <li key={n.to}>
              <NavLink
                to={n.to}
                title={n.label}
                end={n.end}
                className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`}
                data-testid={`nav-${'testId' in n ? n.testId : n.label.toLowerCase()}`}
              >
                <Icon name={n.icon} className="nav-icon" />
                <span className="nav-label">{n.label}</span>
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="nav-footer">
          <NavLink to="/demo" className="nav-link nav-link-subtle">
            <Icon name="external" className="nav-icon" />
            <span className="nav-label">Public demo</span>
          </NavLink>
          <div className="nav-user">
            <span className="avatar" aria-hidden="true">
              {(me.data?.username ?? '?').charAt(0).toUpperCase()}
            </span>
            <span className="nav-username" data-testid="current-user" title={me.data?.username}>
              {me.data?.username}
            </span>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => logout.mutate()}
              disabled={logout.isPending}
              data-testid="logout"
            >
              Log out
            </button>
          </div>
        </div>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
