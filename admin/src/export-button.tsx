import { useState } from 'react';
import { Button, useListContext, useNotify, useResourceContext } from 'react-admin';
import { api } from './http.ts';
import { listQuery } from './data-provider.ts';
import { RESOURCES } from './resources.ts';

/**
 * Downloads every row of the current filter and sort as CSV (DECISIONS §18's export: the list's own URL
 * with `format=csv`), not the page on screen. Through `fetch` with the bearer token, then a download of
 * the answer's bytes.
 */
export function ExportCsvButton() {
  const resource = useResourceContext()!;
  const { filterValues, sort } = useListContext();
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const spec = RESOURCES[resource]!;
  const download = async () => {
    setBusy(true);
    try {
      const query = listQuery(resource, { filter: filterValues, sort });
      query.set('format', 'csv');
      const response = await api<Response>(`/api/v2${spec.list}?${query.toString()}`, {
        headers: { accept: 'text/csv' },
        raw: true,
      });
      const blob = await response.body.blob();
      const link = window.document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `${resource}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return <Button label="Export" onClick={() => void download()} disabled={busy} />;
}
