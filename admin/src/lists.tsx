import type { ReactElement } from 'react';
import {
  Button,
  CreateButton,
  Datagrid,
  DateField,
  DeleteButton,
  EditButton,
  List,
  NumberField,
  SelectInput,
  ShowButton,
  TextField,
  TextInput,
  TopToolbar,
  useListContext,
  usePermissions,
  useRecordContext,
  useResourceContext,
} from 'react-admin';
import { Card, CardContent, List as MuiList, ListItemButton, ListItemText, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { defaultOrder } from './data-provider.ts';
import { ExportCsvButton } from './export-button.tsx';
import type { Me } from './auth-provider.ts';
import { RESOURCES } from './resources.ts';

/** Forward paging by cursor (DECISIONS §12): `Next page` follows the last page's cursor; nothing counts the table. */
export function CursorPagination() {
  const { page, setPage, hasNextPage, hasPreviousPage, isPending } = useListContext();
  return (
    <TopToolbar sx={{ justifyContent: 'flex-end' }}>
      <Button label="Previous page" disabled={!hasPreviousPage || isPending} onClick={() => setPage(page - 1)} />
      <Typography variant="body2" sx={{ mx: 2 }} aria-live="polite">
        Page {page}
      </Typography>
      <Button label="Next page" disabled={!hasNextPage || isPending} onClick={() => setPage(page + 1)} />
    </TopToolbar>
  );
}

/** Counts per value over the list's other filters (DECISIONS §14's facets); a value filters the list. */
function FacetPanel() {
  const { meta, filterValues, setFilters } = useListContext();
  const facets = (meta as { facets?: Record<string, { value: unknown; count: number }[]> } | undefined)?.facets ?? {};
  const names = Object.keys(facets);
  if (names.length === 0) return null;
  return (
    <Card sx={{ order: -1, mr: 2, mt: 8, minWidth: 200 }} component="aside" aria-label="Facets">
      <CardContent>
        {names.map((name) => (
          <nav key={name} aria-label={`Facet ${name}`}>
            <Typography variant="subtitle2" component="h2">
              {name}
            </Typography>
            <MuiList dense component="div">
              {facets[name]!.map(({ value, count }) => {
                const selected = filterValues[name] === value;
                return (
                  <ListItemButton
                    key={String(value)}
                    selected={selected}
                    onClick={() => {
                      const next = { ...filterValues };
                      if (selected) delete next[name];
                      else next[name] = value;
                      setFilters(next, {});
                    }}
                  >
                    <ListItemText primary={`${String(value)} (${count})`} />
                  </ListItemButton>
                );
              })}
            </MuiList>
          </nav>
        ))}
      </CardContent>
    </Card>
  );
}

function Actions() {
  const resource = useResourceContext()!;
  const { permissions } = usePermissions<Me>();
  const canCreate = RESOURCES[resource]?.create && permissions?.rights[resource]?.create !== 'none';
  return (
    <TopToolbar>
      {canCreate ? <CreateButton label="Create" /> : null}
      {resource !== 'events' ? <ExportCsvButton /> : null}
    </TopToolbar>
  );
}

export function HistoryButton() {
  const resource = useResourceContext();
  const record = useRecordContext();
  if (!record) return null;
  return <Button label="History" component={Link} to={`/${resource}/${record.id}/history`} />;
}

const search = <TextInput key="q" source="q" label="Search" alwaysOn resettable />;
const choices = (...values: string[]) => values.map((value) => ({ id: value, name: value }));

/** The filters of each list: §12's fields and §14's `q` where the API has them. */
const FILTERS: Record<string, ReactElement[]> = {
  users: [
    <TextInput key="name" source="name.contains" label="Name contains" alwaysOn />,
    <SelectInput key="role" source="role" label="Role" choices={choices('user', 'admin')} alwaysOn />,
    <SelectInput
      key="status"
      source="status"
      label="Status"
      choices={choices('active', 'inactive', 'suspended')}
      alwaysOn
    />,
  ],
  posts: [search, <TextInput key="author" source="authorId" label="Author id" alwaysOn />],
  comments: [
    <TextInput key="post" source="postId" label="Post id" alwaysOn />,
    <TextInput key="author" source="authorId" label="Author id" alwaysOn />,
  ],
  products: [
    search,
    <TextInput key="category" source="category" label="Category" alwaysOn />,
    <TextInput key="min" source="price.gte" label="Min price" alwaysOn />,
    <TextInput key="max" source="price.lte" label="Max price" alwaysOn />,
  ],
  orders: [
    <SelectInput
      key="status"
      source="status"
      label="Status"
      choices={choices('pending', 'paid', 'cancelled', 'refunded')}
      alwaysOn
    />,
  ],
  events: [<TextInput key="types" source="types" label="Types" alwaysOn />],
};

const COLUMNS: Record<string, ReactElement[]> = {
  users: [
    <TextField key="name" source="name" />,
    <TextField key="email" source="email" />,
    <TextField key="role" source="role" />,
    <TextField key="status" source="status" />,
    <DateField key="createdAt" source="createdAt" showTime />,
  ],
  posts: [
    <TextField key="title" source="title" />,
    <NumberField key="authorId" source="authorId" label="Author" />,
    <DateField key="createdAt" source="createdAt" showTime />,
  ],
  comments: [
    <TextField key="text" source="text" />,
    <NumberField key="postId" source="postId" label="Post" sortable={false} />,
    <NumberField key="authorId" source="authorId" label="Author" />,
    <DateField key="createdAt" source="createdAt" showTime />,
  ],
  products: [
    <TextField key="name" source="name" />,
    <TextField key="category" source="category" sortable={false} />,
    <NumberField key="price" source="price" options={{ minimumFractionDigits: 2 }} />,
    <NumberField key="stock" source="stock" />,
    <DateField key="createdAt" source="createdAt" />,
  ],
  orders: [
    <NumberField key="customerId" source="customerId" label="Customer" sortable={false} />,
    <TextField key="status" source="status" sortable={false} />,
    <NumberField key="amount" source="amount" />,
    <TextField key="currency" source="currency" sortable={false} />,
    <DateField key="createdAt" source="createdAt" showTime />,
  ],
  customers: [
    <TextField key="name" source="name" />,
    <TextField key="email" source="email" />,
    <NumberField key="orderCount" source="orderCount" label="Orders" />,
    <NumberField key="totalSpent" source="totalSpent" label="Spent" />,
  ],
  webhooks: [
    <TextField key="url" source="url" />,
    <TextField key="status" source="status" />,
    <TextField key="description" source="description" />,
    <DateField key="createdAt" source="createdAt" showTime />,
  ],
  events: [
    <TextField key="type" source="type" sortable={false} />,
    <DateField key="timestamp" source="timestamp" showTime sortable={false} />,
  ],
};

/** One list screen: the resource's columns, filters, facets, cursor paging, export and row actions. */
export function ResourceList() {
  const resource = useResourceContext()!;
  const spec = RESOURCES[resource]!;
  const { permissions } = usePermissions<Me>();
  const rights = permissions?.rights[resource];
  const columns = COLUMNS[resource] ?? [];
  return (
    <List
      filters={FILTERS[resource]}
      actions={<Actions />}
      pagination={<CursorPagination />}
      perPage={20}
      sort={{ field: 'id', order: defaultOrder(resource) }}
      aside={spec.facets ? <FacetPanel /> : undefined}
      queryOptions={{ meta: { facets: Boolean(spec.facets) } }}
      disableSyncWithLocation={false}
      storeKey={false}
      empty={false}
    >
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="id" sortable={spec.sort !== 'none'} />
        {columns}
        {spec.item && resource !== 'comments' ? <ShowButton label="Show" /> : null}
        {spec.updatePath && rights?.update !== 'none' ? <EditButton label="Edit" /> : null}
        {spec.trash ? <HistoryButton /> : null}
        {spec.item && resource !== 'orders' && resource !== 'customers' && rights?.delete !== 'none' ? (
          <DeleteButton label="Delete" mutationMode="undoable" redirect={false} />
        ) : null}
      </Datagrid>
    </List>
  );
}
