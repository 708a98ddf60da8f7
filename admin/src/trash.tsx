import { useCallback, useEffect, useState } from 'react';
import { Button, Title, useNotify } from 'react-admin';
import { Card, CardContent, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { api } from './http.ts';
import { RESOURCES } from './resources.ts';

interface Trashed {
  id: number;
  deletedAt?: string;
  purgeAt?: string;
  [field: string]: unknown;
}

const TRASHED = Object.entries(RESOURCES)
  .filter(([, spec]) => spec.trash)
  .map(([name]) => name);

/**
 * The trash (DECISIONS §19): each resource's `?trashed=only` list, newest deletion first, with `Restore`
 * (`POST /api/v2/{resource}/{id}/restore`).
 */
export function TrashPage() {
  const notify = useNotify();
  const [rows, setRows] = useState<{ resource: string; item: Trashed }[] | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const load = useCallback(async () => {
    const found: { resource: string; item: Trashed }[] = [];
    const failures: string[] = [];
    await Promise.all(
      TRASHED.map(async (resource) => {
        try {
          const { body } = await api<{ data: Trashed[] }>(`/api/v2${RESOURCES[resource]!.list}?trashed=only&limit=50`);
          for (const item of body.data) found.push({ resource, item });
        } catch (error) {
          failures.push(`${resource}: ${(error as Error).message}`);
        }
      }),
    );
    found.sort((a, b) => String(b.item.deletedAt ?? '').localeCompare(String(a.item.deletedAt ?? '')));
    setRows(found);
    setErrors(failures);
  }, []);
  useEffect(() => void load(), [load]);
  const restore = async (resource: string, item: Trashed) => {
    try {
      await api(`/api/v2${RESOURCES[resource]!.item!(item.id)}/restore`, { method: 'POST' });
      notify(`Restored ${resource} ${item.id}`, { type: 'info' });
      await load();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };
  return (
    <Card>
      <Title title="Trash" />
      <CardContent>
        {errors.map((error) => (
          <p key={error} role="alert">
            {error}
          </p>
        ))}
        <Table size="small" aria-label="Trash">
          <TableHead>
            <TableRow>
              <TableCell component="th">Kind</TableCell>
              <TableCell component="th">Id</TableCell>
              <TableCell component="th">Item</TableCell>
              <TableCell component="th">Deleted</TableCell>
              <TableCell component="th">Purged after</TableCell>
              <TableCell component="th">Action</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {(rows ?? []).map(({ resource, item }) => (
              <TableRow key={`${resource}/${item.id}`}>
                <TableCell>{resource}</TableCell>
                <TableCell>{item.id}</TableCell>
                <TableCell>{RESOURCES[resource]!.title(item)}</TableCell>
                <TableCell>{item.deletedAt ?? ''}</TableCell>
                <TableCell>{item.purgeAt ?? ''}</TableCell>
                <TableCell>
                  <Button
                    label="Restore"
                    aria-label={`Restore ${resource} ${item.id}`}
                    onClick={() => void restore(resource, item)}
                  />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {rows && rows.length === 0 ? <p>The trash is empty.</p> : null}
      </CardContent>
    </Card>
  );
}
