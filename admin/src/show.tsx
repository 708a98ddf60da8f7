import { useState } from 'react';
import {
  Button,
  EditButton,
  Labeled,
  Show,
  SimpleShowLayout,
  TopToolbar,
  useNotify,
  useRecordContext,
  useRefresh,
  useResourceContext,
} from 'react-admin';
import { Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { api } from './http.ts';
import { HistoryButton } from './lists.tsx';
import { RESOURCES } from './resources.ts';

interface Link {
  href: string;
  method?: string;
}

const label = (rel: string) => rel.charAt(0).toUpperCase() + rel.slice(1).replace(/-/g, ' ');

/**
 * The actions an item's `_links` offer (an order's `pay`, `cancel`, `refund`): one button per POST link,
 * named by its relation, so the console offers exactly what the server allows in the item's state.
 */
export function LinkActions() {
  const record = useRecordContext();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const links = Object.entries((record?._links ?? {}) as Record<string, Link>).filter(
    ([rel, link]) => link.method === 'POST' && rel !== 'self',
  );
  if (links.length === 0) return null;
  const act = async (rel: string, link: Link) => {
    setBusy(true);
    try {
      await api(link.href, {
        method: 'POST',
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      notify(`${label(rel)}: done`, { type: 'info' });
      refresh();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {links.map(([rel, link]) => (
        <Button key={rel} label={label(rel)} disabled={busy} onClick={() => void act(rel, link)} variant="outlined" />
      ))}
    </>
  );
}

function Fields() {
  const record = useRecordContext();
  if (!record) return null;
  const scalars = Object.entries(record).filter(
    ([name, value]) => !name.startsWith('_') && (value === null || typeof value !== 'object'),
  );
  const items = Array.isArray(record.items) ? (record.items as Record<string, unknown>[]) : undefined;
  return (
    <>
      {scalars.map(([name, value]) => (
        <Labeled key={name} label={name}>
          <Typography variant="body2">{value === null ? '—' : String(value)}</Typography>
        </Labeled>
      ))}
      {items ? (
        <Table size="small" aria-label="Items">
          <TableHead>
            <TableRow>
              {Object.keys(items[0] ?? {}).map((key) => (
                <TableCell key={key} component="th">
                  {key}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((item, index) => (
              <TableRow key={index}>
                {Object.values(item).map((value, cell) => (
                  <TableCell key={cell}>{String(value)}</TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </>
  );
}

function ShowActions() {
  const resource = useResourceContext()!;
  const spec = RESOURCES[resource]!;
  return (
    <TopToolbar>
      <LinkActions />
      {spec.updatePath ? <EditButton label="Edit" /> : null}
      {spec.trash ? <HistoryButton /> : null}
    </TopToolbar>
  );
}

export function ResourceShow() {
  return (
    <Show actions={<ShowActions />}>
      <SimpleShowLayout>
        <Fields />
      </SimpleShowLayout>
    </Show>
  );
}
