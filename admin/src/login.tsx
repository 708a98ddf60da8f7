import { useState } from 'react';
import { Login, useLogin, useNotify } from 'react-admin';
import { Button, CardContent, TextField } from '@mui/material';

/** Sign in with e-mail and password (DECISIONS §20). */
function SignInForm() {
  const login = useLogin();
  const notify = useNotify();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        login({ username: email, password })
          .catch((error: Error) => notify(error.message, { type: 'error' }))
          .finally(() => setBusy(false));
      }}
    >
      <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, width: 300 }}>
        <TextField
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <Button type="submit" variant="contained" disabled={busy}>
          Sign in
        </Button>
      </CardContent>
    </form>
  );
}

export function SignInPage() {
  return (
    <Login>
      <SignInForm />
    </Login>
  );
}
