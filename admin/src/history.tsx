import { useCallback, useEffect, useState } from 'react';
import { Button, Title, useNotify } from 'react-admin';
import { Card, CardContent, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useParams } from 'react-router-dom';
import { currentEtag } from './data-provider.ts';
import { api } from './http.ts';
import { RESOURCES } from './resources.ts';

interface Revision {
  rev: number;
  at: string;
  op: string;
  actor?: { type: string; id: number | null };
}

type State = Record<string, unknown>;

const PAGE = 20;
const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

/** The fields whose values differ between two states, with the old and the new value. */
function differences(before: State, after: State): { field: string; old: unknown; new: unknown }[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields
    .filter((field) => show(before[field]) !== show(after[field]))
    .map((field) => ({ field, old: before[field], new: after[field] }));
}

/**
 * An item's revisions (DECISIONS §19), newest first, each as the old and new value of every field it
 * changed (the states `GET .../revisions/{rev}` gives, compared one with the one before), and `Restore`
 * on each, which sends `POST .../revisions/{rev}/restore` with the item's current ETag.
 */
export function HistoryPage() {
  const { resource = '', id = '' } = useParams();
  const notify = useNotify();
  const [entries, setEntries] = useState<{ revision: Revision; changes: ReturnType<typeof differences> }[] | null>(
    null,
  );
  const [error, setError] = useState<string | null>(null);
  const spec = RESOURCES[resource];
  const base = spec?.item ? `/api/v2${spec.item(id)}` : '';
  const load = useCallback(async () => {
    if (!base) return;
    try {
      const { body } = await api<{ data: Revision[] }>(`${base}/revisions?limit=${PAGE + 1}`);
      const states = await Promise.all(
        body.data.map((revision) => api<State>(`${base}/revisions/${revision.rev}`).then((r) => r.body)),
      );
      const shown = body.data.slice(0, PAGE);
      setEntries(
        shown.map((revision, index) => ({
          revision,
          changes: differences(states[index + 1] ?? {}, revision.op === 'delete' ? {} : states[index]!),
        })),
      );
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [base]);
  useEffect(() => void load(), [load]);
  const restore = async (rev: number) => {
    try {
      const etag = await currentEtag(resource, id);
      await api(`${base}/revisions/${rev}/restore`, { method: 'POST', headers: etag ? { 'if-match': etag } : {} });
      notify(`Restored revision ${rev}`, { type: 'info' });
      await load();
    } catch (failure) {
      notify((failure as Error).message, { type: 'error' });
    }
  };
  return (
    <Card>
      <Title title={`History of ${resource} ${id}`} />
      <CardContent>
        <Typography variant="h5" component="h1">
          History of {resource} {id}
        </Typography>
        {error ? <p role="alert">{error}</p> : null}
        {(entries ?? []).map(({ revision, changes }) => (
          <section key={revision.rev} aria-label={`Revision ${revision.rev}`}>
            <Typography variant="subtitle1" component="h2" sx={{ mt: 2 }}>
              Revision {revision.rev}: {revision.op} at {revision.at}
              {revision.actor ? ` by ${revision.actor.type} ${revision.actor.id ?? ''}` : ''}
            </Typography>
            <Table size="small" aria-label={`Changes of revision ${revision.rev}`}>
              <TableHead>
                <TableRow>
                  <TableCell component="th">Field</TableCell>
                  <TableCell component="th">Old</TableCell>
                  <TableCell component="th">New</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {changes.map((change) => (
                  <TableRow key={change.field}>
                    <TableCell>{change.field}</TableCell>
                    <TableCell>{show(change.old)}</TableCell>
                    <TableCell>{show(change.new)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
            <Button
              label="Restore"
              aria-label={`Restore revision ${revision.rev}`}
              onClick={() => void restore(revision.rev)}
            />
          </section>
        ))}
      </CardContent>
    </Card>
  );
}
