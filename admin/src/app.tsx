import { Admin, CustomRoutes, defaultTheme, Resource, type RaThemeOptions } from 'react-admin';
import { createHashRouter, Route, RouterProvider } from 'react-router-dom';
import { authProvider } from './auth-provider.ts';
import { Dashboard } from './dashboard.tsx';
import { dataProvider } from './data-provider.ts';
import { ResourceCreate, ResourceEdit } from './forms.tsx';
import { HistoryPage } from './history.tsx';
import { ImportsPage } from './imports.tsx';
import { ConsoleLayout } from './layout.tsx';
import { ResourceList } from './lists.tsx';
import { SignInPage } from './login.tsx';
import { RESOURCES } from './resources.ts';
import { ResourceShow } from './show.tsx';
import { TrashPage } from './trash.tsx';

/** react-admin's theme with darker colours: every text keeps at least WCAG's 4.5:1 contrast (axe-core checks it). */
const theme: RaThemeOptions = {
  ...defaultTheme,
  palette: {
    ...defaultTheme.palette,
    primary: { main: '#0d47a1', contrastText: '#ffffff' },
    secondary: { main: '#1c2a3a', contrastText: '#ffffff' },
    error: { main: '#b71c1c', contrastText: '#ffffff' },
  },
};

/** The admin console (DECISIONS §20): react-admin over the public /api/v2, nothing private. */
function Console() {
  return (
    <Admin
      title="content-service"
      theme={theme}
      dataProvider={dataProvider}
      authProvider={authProvider}
      dashboard={Dashboard}
      layout={ConsoleLayout}
      loginPage={SignInPage}
      requireAuth
      disableTelemetry
    >
      {Object.entries(RESOURCES).map(([name, spec]) => (
        <Resource
          key={name}
          name={name}
          list={ResourceList}
          show={spec.item && name !== 'comments' ? ResourceShow : undefined}
          edit={spec.updatePath ? ResourceEdit : undefined}
          create={spec.create ? ResourceCreate : undefined}
          recordRepresentation={(record) => spec.title(record)}
        />
      ))}
      <CustomRoutes>
        <Route path="/trash" element={<TrashPage />} />
        <Route path="/imports" element={<ImportsPage />} />
        <Route path="/:resource/:id/history" element={<HistoryPage />} />
      </CustomRoutes>
    </Admin>
  );
}

/**
 * react-admin inside a hash router of ours, only to turn off React transitions for navigations. With them
 * (react-router's default) the address changes at once but the old screen stays up, and editable, until
 * the new one has rendered: a create form that had just saved took keystrokes for up to a few hundred
 * milliseconds under load, and they were lost when the edit form replaced it (the edit test typed into it).
 * Without them the screen changes with the address. react-admin uses a router it finds around it.
 */
const router = createHashRouter([{ path: '*', element: <Console /> }]);

export function App() {
  return <RouterProvider router={router} useTransitions={false} />;
}
