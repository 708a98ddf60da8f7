import { useEffect, useState } from 'react';
import { Button } from 'react-admin';
import { Dialog, DialogActions, DialogContent, DialogTitle, TextField } from '@mui/material';
import { onReauthNeeded, reauthenticated, requestToken, session } from './session.ts';

/**
 * The token expired: ask for the password again, over the screen as it is (its filters, page and any
 * unsaved form stay); the requests that met the 401 go on with the new token.
 */
export function ReauthDialog() {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => onReauthNeeded(setOpen), []);
  const submit = async () => {
    try {
      const token = await requestToken(session.email() ?? '', password);
      setPassword('');
      setError(null);
      reauthenticated(token);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <Dialog open={open} aria-labelledby="reauth-title">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <DialogTitle id="reauth-title">Your session has expired</DialogTitle>
        <DialogContent>
          <p>Enter the password of {session.email()} to go on where you were.</p>
          <TextField
            label="Password"
            type="password"
            autoFocus
            fullWidth
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={Boolean(error)}
            helperText={error ?? ' '}
          />
        </DialogContent>
        <DialogActions>
          <Button label="Sign in" type="submit" variant="contained" />
        </DialogActions>
      </form>
    </Dialog>
  );
}
