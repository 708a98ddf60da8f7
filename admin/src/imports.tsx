import { useState } from 'react';
import { Button, Title } from 'react-admin';
import {
  Card,
  CardContent,
  FormControl,
  InputLabel,
  LinearProgress,
  MenuItem,
  Select,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
} from '@mui/material';
import { api } from './http.ts';

interface ImportJob {
  id: number;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  dryRun: boolean;
  rows: { read: number; created: number; updated: number; failed: number };
}

interface ErrorLine {
  line: number;
  field?: string;
  message: string;
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Import a CSV (DECISIONS §18): a dry run first (counts and error lines, nothing written), then the real
 * run; rows read and written show while the job runs, then its error lines.
 */
export function ImportsPage() {
  const [resource, setResource] = useState('products');
  const [mode, setMode] = useState('create');
  const [file, setFile] = useState<File | null>(null);
  const [job, setJob] = useState<ImportJob | null>(null);
  const [errors, setErrors] = useState<ErrorLine[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);

  const run = async (dryRun: boolean) => {
    if (!file) return;
    setBusy(true);
    setFailure(null);
    setErrors([]);
    try {
      const query = new URLSearchParams({ resource, mode, ...(dryRun ? { dryRun: 'true' } : {}) });
      const started = await api<ImportJob>(`/api/v2/imports?${query.toString()}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'idempotency-key': crypto.randomUUID() },
        body: await file.text(),
      });
      const location = started.headers.get('location') ?? `/api/v2/imports/${started.body.id}`;
      let current = started.body;
      setJob(current);
      while (!FINISHED.has(current.status)) {
        await wait(300);
        current = (await api<ImportJob>(location)).body;
        setJob(current);
      }
      // NDJSON read as text: one error line alone is valid JSON too, and must not be parsed as the whole body.
      const report = await api<Response>(`${location}/errors`, {
        headers: { accept: 'application/x-ndjson' },
        raw: true,
      });
      setErrors(
        (await report.body.text())
          .split('\n')
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line) as ErrorLine),
      );
      setChecked(dryRun);
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card>
      <Title title="Imports" />
      <CardContent>
        <div style={{ display: 'flex', gap: 16, alignItems: 'center', flexWrap: 'wrap' }}>
          <FormControl size="small">
            <InputLabel id="import-resource">Resource</InputLabel>
            <Select
              labelId="import-resource"
              label="Resource"
              value={resource}
              onChange={(event) => {
                setResource(event.target.value);
                setChecked(false);
              }}
            >
              <MenuItem value="products">products</MenuItem>
              <MenuItem value="users">users</MenuItem>
              <MenuItem value="posts">posts</MenuItem>
            </Select>
          </FormControl>
          <FormControl size="small">
            <InputLabel id="import-mode">Mode</InputLabel>
            <Select
              labelId="import-mode"
              label="Mode"
              value={mode}
              onChange={(event) => {
                setMode(event.target.value);
                setChecked(false);
              }}
            >
              <MenuItem value="create">create</MenuItem>
              <MenuItem value="upsert">upsert</MenuItem>
            </Select>
          </FormControl>
          <label>
            CSV file{' '}
            <input
              type="file"
              accept=".csv,text/csv"
              onChange={(event) => {
                setFile(event.target.files?.[0] ?? null);
                setChecked(false);
                setJob(null);
              }}
            />
          </label>
          <Button label="Dry run" disabled={!file || busy} onClick={() => void run(true)} variant="outlined" />
          <Button
            label="Import"
            disabled={!file || busy || !checked}
            onClick={() => void run(false)}
            variant="contained"
          />
        </div>
        {failure ? <p role="alert">{failure}</p> : null}
        {job ? (
          <section aria-label="Import progress" aria-live="polite" style={{ marginTop: 16 }}>
            {busy ? <LinearProgress aria-label="Import running" /> : null}
            <p>
              {job.dryRun ? 'Dry run' : 'Import'} {job.id}: {job.status}. Rows read {job.rows.read}, created{' '}
              {job.rows.created}, updated {job.rows.updated}, failed {job.rows.failed}.
            </p>
          </section>
        ) : null}
        {errors.length > 0 ? (
          <Table size="small" aria-label="Error lines">
            <TableHead>
              <TableRow>
                <TableCell component="th">Line</TableCell>
                <TableCell component="th">Field</TableCell>
                <TableCell component="th">Message</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {errors.map((error, index) => (
                <TableRow key={index}>
                  <TableCell>{error.line}</TableCell>
                  <TableCell>{error.field ?? ''}</TableCell>
                  <TableCell>{error.message}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ) : null}
      </CardContent>
    </Card>
  );
}
