import { useState } from 'react';
import {
  Button,
  Create,
  DeleteButton,
  Edit,
  NumberInput,
  required,
  SaveButton,
  SimpleForm,
  Toolbar,
  useEditContext,
  useNotify,
  useRedirect,
  useRefresh,
  useResourceContext,
  useUpdate,
  type RaRecord,
} from 'react-admin';
import {
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
} from '@mui/material';
import { conflictOf, type Conflict } from './data-provider.ts';
import { SchemaInputs, useWritableFields } from './openapi-form.tsx';
import { RESOURCES } from './resources.ts';
import { HistoryButton } from './lists.tsx';

const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

/**
 * A 412 on save (DECISIONS §20): the item changed meanwhile. Each field that differs shows the server's
 * value beside the person's; nothing is written until they choose `Overwrite` (saves theirs over the new
 * version, with its ETag) or `Discard` (shows the server's version).
 */
function ConflictDialog({
  conflict,
  onOverwrite,
  onDiscard,
}: {
  conflict: Conflict;
  onOverwrite: () => void;
  onDiscard: () => void;
}) {
  const fields = Object.keys(conflict.local).filter(
    (field) => show(conflict.local[field]) !== show(conflict.server[field]),
  );
  return (
    <Dialog open aria-labelledby="conflict-title">
      <DialogTitle id="conflict-title">This item changed meanwhile</DialogTitle>
      <DialogContent>
        <p>Someone saved it after you opened it. Choose which version to keep.</p>
        <Table size="small" aria-label="Differences">
          <TableHead>
            <TableRow>
              <TableCell component="th">Field</TableCell>
              <TableCell component="th">Server</TableCell>
              <TableCell component="th">Yours</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {fields.map((field) => (
              <TableRow key={field}>
                <TableCell>{field}</TableCell>
                <TableCell>{show(conflict.server[field])}</TableCell>
                <TableCell>{show(conflict.local[field])}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
      <DialogActions>
        <Button label="Discard" onClick={onDiscard} />
        <Button label="Overwrite" onClick={onOverwrite} variant="contained" />
      </DialogActions>
    </Dialog>
  );
}

function EditToolbar() {
  const resource = useResourceContext()!;
  return (
    <Toolbar sx={{ display: 'flex', justifyContent: 'space-between' }}>
      <SaveButton label="Save" />
      <span>
        {RESOURCES[resource]?.trash ? <HistoryButton /> : null}
        <DeleteButton label="Delete" mutationMode="undoable" />
      </span>
    </Toolbar>
  );
}

function EditForm() {
  const resource = useResourceContext()!;
  const { record } = useEditContext();
  // The version the form was opened with, kept: a list refetched meanwhile (live events) writes its rows
  // into react-admin's item cache, and a new record would reset the form under the person's typing.
  // Discard remounts the form (its `key`), which then opens the server's version.
  const [opened, setOpened] = useState(record);
  if (opened === undefined && record !== undefined) setOpened(record);
  return (
    <SimpleForm toolbar={<EditToolbar />} record={opened ?? record}>
      <SchemaInputs path={RESOURCES[resource]!.updatePath} method="patch" />
    </SimpleForm>
  );
}

export function ResourceEdit() {
  const resource = useResourceContext()!;
  const spec = RESOURCES[resource]!;
  const writable = useWritableFields(spec.updatePath);
  const [conflict, setConflict] = useState<{ error: Conflict; id: RaRecord['id'] } | null>(null);
  const notify = useNotify();
  const refresh = useRefresh();
  const redirect = useRedirect();
  const [update] = useUpdate();
  // Bumped by Discard: the form is made anew from the server's version, dropping the person's edits.
  const [version, setVersion] = useState(0);
  return (
    <>
      <Edit
        mutationMode="pessimistic"
        mutationOptions={{
          meta: { writable },
          onError: (error: unknown, variables: { id?: RaRecord['id']; previousData?: RaRecord } | undefined) => {
            const found = conflictOf(error);
            if (found && variables?.id !== undefined) return setConflict({ error: found, id: variables.id });
            // A 422's details are on the fields (the form shows them); anything else is a notification.
            const status = (error as { status?: number }).status;
            if (status !== 422) notify((error as Error).message, { type: 'error' });
          },
        }}
        title={<span>Edit</span>}
        // The form keeps the version it was opened with (a refetch under it would reset what is being
        // typed); a change made meanwhile shows as a 412 and a choice on save.
        queryOptions={{ refetchOnWindowFocus: false, refetchOnMount: false }}
      >
        <EditForm key={version} />
      </Edit>
      {conflict ? (
        <ConflictDialog
          conflict={conflict.error}
          onDiscard={() => {
            setConflict(null);
            refresh();
            setVersion((current) => current + 1);
          }}
          onOverwrite={() => {
            const { error, id } = conflict;
            setConflict(null);
            update(
              resource,
              {
                id,
                data: { ...error.server, ...error.local },
                previousData: error.server,
                meta: { ifMatch: error.etag, writable },
              },
              {
                mutationMode: 'pessimistic',
                onSuccess: () => {
                  notify('Saved over the other version', { type: 'info' });
                  redirect('list', resource);
                },
                onError: (failure) => notify((failure as Error).message, { type: 'error' }),
              },
            );
          }}
        />
      ) : null}
    </>
  );
}

export function ResourceCreate() {
  const resource = useResourceContext()!;
  const spec = RESOURCES[resource]!;
  const notify = useNotify();
  return (
    <Create
      redirect="edit"
      mutationOptions={{
        onError: (error: unknown) => {
          if ((error as { status?: number }).status !== 422) notify((error as Error).message, { type: 'error' });
        },
      }}
    >
      <SimpleForm
        toolbar={
          <Toolbar>
            <SaveButton label="Save" />
          </Toolbar>
        }
      >
        {resource === 'posts' ? <AuthorInput /> : null}
        <SchemaInputs path={spec.createPath} method="post" />
      </SimpleForm>
    </Create>
  );
}

/** A post is created under its author (`POST /users/{id}/posts`). */
function AuthorInput() {
  return <NumberInput source="authorId" label="Author id" validate={required()} />;
}
