import type { ReactNode } from 'react';
import { AppBar, Layout, Menu, RefreshIconButton, useLoading, usePermissions } from 'react-admin';
import { CircularProgress } from '@mui/material';
import type { Me } from './auth-provider.ts';
import { LiveRefresh } from './live.tsx';
import { ReauthDialog } from './reauth.tsx';

const LABELS: Record<string, string> = {
  users: 'Users',
  posts: 'Posts',
  comments: 'Comments',
  products: 'Products',
  orders: 'Orders',
  customers: 'Customers',
  webhooks: 'Webhooks',
  events: 'Events',
};

/** DECISIONS §20's navigation, showing only what the caller's rights (`GET /api/v2/me`) let them read. */
function Navigation() {
  const { permissions } = usePermissions<Me>();
  // Customers are listed for admins only; anyone else reads just their own customer record.
  const can = (name: string) => {
    const read = permissions?.rights[name]?.read ?? 'none';
    return name === 'customers' ? read === 'all' : read !== 'none';
  };
  return (
    <Menu>
      <Menu.DashboardItem primaryText="Dashboard" />
      {Object.entries(LABELS)
        .filter(([name]) => can(name))
        .map(([name, label]) => (
          <Menu.Item key={name} to={`/${name}`} primaryText={label} />
        ))}
      {can('trash') ? <Menu.Item to="/trash" primaryText="Trash" /> : null}
      {can('imports') ? <Menu.Item to="/imports" primaryText="Imports" /> : null}
    </Menu>
  );
}

/** react-admin's loading indicator, with the name its progress bar lacks (axe-core's aria-progressbar-name). */
function LoadingOrRefresh() {
  const loading = useLoading();
  return loading ? (
    <CircularProgress color="inherit" size={18} thickness={5} aria-label="Loading" sx={{ m: 1.5 }} />
  ) : (
    <RefreshIconButton />
  );
}

const ConsoleAppBar = () => <AppBar toolbar={<LoadingOrRefresh />} />;

export function ConsoleLayout({ children }: { children: ReactNode }) {
  return (
    <Layout menu={Navigation} appBar={ConsoleAppBar}>
      {children}
      <LiveRefresh />
      <ReauthDialog />
    </Layout>
  );
}
