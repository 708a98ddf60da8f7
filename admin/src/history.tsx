import { useCallback, useEffect, useState } from 'react';
import { Button, Title, useNotify } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Card, CardContent, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useParams } from 'react-router-dom';
import { fieldChanges, type FieldChange, type Revision, type State } from './history-diff.ts';
import { api } from './http.ts';
import { RESOURCES } from './resources.ts';

interface RevisionPage {
  data: Revision[];
  pagination: { hasNext: boolean; nextCursor: string | null };
}

interface Shown {
  entries: { revision: Revision; changes: FieldChange[] }[];
  nextCursor: string | null;
}

const PAGE = 20;
/** Comments cannot be edited, so their revisions are read, not restored (docs/HISTORY.md). */
const RESTORABLE = new Set(['users', 'posts', 'products']);
const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));
const OPS: Record<Revision['op'], string> = {
  create: 'created',
  update: 'updated',
  delete: 'moved to the trash',
  restore: 'restored from the trash',
  revert: 'restored to an older revision',
  purge: 'removed for good',
};

/**
 * One page of revisions (newest first) with each one's changed fields: the page's patches applied to the
 * item as it was before the page's oldest revision (its predecessor's state, one read), not a read per
 * revision.
 */
async function readPage(base: string, cursor: string | undefined): Promise<Shown> {
  const query = new URLSearchParams({ limit: String(PAGE), ...(cursor ? { cursor } : {}) });
  const { body } = await api<RevisionPage>(`${base}/revisions?${query.toString()}`);
  const nextCursor = body.pagination.nextCursor;
  let before: State = {};
  if (nextCursor) {
    const older = await api<RevisionPage>(`${base}/revisions?limit=1&cursor=${encodeURIComponent(nextCursor)}`);
    const predecessor = older.body.data[0];
    if (predecessor) before = (await api<State>(`${base}/revisions/${predecessor.rev}`)).body;
  }
  const changes = fieldChanges(before, body.data);
  return { entries: body.data.map((revision, index) => ({ revision, changes: changes[index]! })), nextCursor };
}

/**
 * An item's revisions (DECISIONS §19, §20), newest first and paged by cursor, each with the old and new
 * value of every field it changed, and `Restore` on each (users, posts, products), which sends
 * `POST .../revisions/{rev}/restore` with the ETag of the item as read when this screen was shown: a
 * change made since is a 412, said so, and the history is shown again; nothing is overwritten blind.
 */
export function HistoryPage() {
  const { resource = '', id = '' } = useParams();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<Shown | null>(null);
  // The cursor of each page seen: `Newer revisions` goes back through them.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const spec = RESOURCES[resource];
  const base = spec?.item ? `/api/v2${spec.item(id)}` : '';
  const cursor = cursors[cursors.length - 1];
  const restorable = RESTORABLE.has(resource);

  const load = useCallback(async () => {
    if (!base) return;
    try {
      // The item's version first: a restore sends it, so a change made after this read is a 412.
      const item = restorable ? await api(base).catch(() => null) : null;
      setEtag(item?.headers.get('etag') ?? null);
      setShown(await readPage(base, cursor));
      setError(null);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [base, cursor, restorable]);
  useEffect(() => void load(), [load]);

  const restore = async (rev: number) => {
    try {
      await api(`${base}/revisions/${rev}/restore`, { method: 'POST', headers: { 'if-match': etag ?? '' } });
      notify(`Restored revision ${rev}`, { type: 'info' });
      // What the console holds of the item is older than the restore: read it again where it is shown.
      queryClient.removeQueries({ queryKey: [resource, 'getOne', { id: String(id) }] });
      void queryClient.invalidateQueries({ queryKey: [resource, 'getList'] });
      // The new revision is the newest: show the first page (changing the page loads it).
      if (cursors.length > 1) return setCursors([undefined]);
    } catch (failure) {
      const status = (failure as { status?: number }).status;
      notify(
        status === 412
          ? 'This item changed since its history was shown: nothing was restored; here is its history now'
          : (failure as Error).message,
        { type: 'error' },
      );
    }
    await load();
  };

  return (
    <Card>
      <Title title={`History of ${resource} ${id}`} />
      <CardContent>
        <Typography variant="h5" component="h1">
          History of {resource} {id}
        </Typography>
        {error ? <p role="alert">{error}</p> : null}
        {restorable && shown && !etag ? (
          <p>
            The item is not readable now (in the trash, or removed): restore it from the Trash to restore a revision.
          </p>
        ) : null}
        {(shown?.entries ?? []).map(({ revision, changes }) => (
          <section key={revision.rev} aria-label={`Revision ${revision.rev}`}>
            <Typography variant="subtitle1" component="h2" sx={{ mt: 2 }}>
              Revision {revision.rev}: {OPS[revision.op] ?? revision.op} at {revision.at} by{' '}
              {revision.actor.type === 'system' ? 'the service' : `user ${revision.actor.id ?? ''}`}
            </Typography>
            {changes.length > 0 ? (
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
            ) : (
              <Typography variant="body2">No field changed.</Typography>
            )}
            {restorable ? (
              <Button
                label="Restore"
                aria-label={`Restore revision ${revision.rev}`}
                disabled={!etag}
                onClick={() => void restore(revision.rev)}
              />
            ) : null}
          </section>
        ))}
        <nav aria-label="Revision pages">
          <Button
            label="Newer revisions"
            disabled={cursors.length === 1}
            onClick={() => setCursors((seen) => seen.slice(0, -1))}
          />
          <Button
            label="Older revisions"
            disabled={!shown?.nextCursor}
            onClick={() => setCursors((seen) => [...seen, shown!.nextCursor!])}
          />
        </nav>
      </CardContent>
    </Card>
  );
}
