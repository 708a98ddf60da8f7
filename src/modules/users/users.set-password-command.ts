import { parseArgs } from 'node:util';
import type { Config } from '../../config/config.ts';
import { createDatabase, type Db } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { migrationsOfModules } from '../index.ts';
import { setPasswordByEmail } from './users.admin-account.ts';
import { PASSWORD_LENGTH } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

export const SET_PASSWORD_USAGE = `Usage: content-service set-password --email E [--password-stdin]

Reads the new password from standard input (one line; a terminal is asked twice, without echo), e.g.
  printf '%s\\n' 'a-new-password' | content-service set-password --email admin@example.com --password-stdin`;

/**
 * `content-service set-password --email E` (DECISIONS §1): sets a user's password, read from standard
 * input so it never appears in a process list or a shell history. Exit 0 with one line; 1 with one line
 * for an unknown e-mail or a password the API would refuse; 2 for a usage error.
 */
export async function runSetPasswordCommand(
  config: Config,
  args: string[],
  usersOf: (db: Db) => Pick<UsersService, 'updateUser'>,
): Promise<void> {
  let email: string | undefined;
  try {
    const { values } = parseArgs({
      args,
      options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    });
    email = values.email;
  } catch (error) {
    return fail(2, `${(error as Error).message}\n\n${SET_PASSWORD_USAGE}`);
  }
  if (!email) return fail(2, `set-password needs --email E\n\n${SET_PASSWORD_USAGE}`);
  const password = await readNewPassword(email);
  if (password === undefined) return fail(1, 'The two passwords differ; nothing changed');
  const db = createDatabase(config.DATABASE_URL, { poolSize: 1 });
  try {
    await migrateToLatest(db, migrationsOfModules);
    if (!(await setPasswordByEmail(db, usersOf(db), email, password)))
      return fail(1, `No user with email ${email}; nothing changed`);
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_ERROR') {
      return fail(
        1,
        `The new password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long (got ${[...password].length}); nothing changed`,
      );
    }
    throw error;
  } finally {
    await db.destroy();
  }
  console.log(`Password set for ${email.trim().toLowerCase()}`);
}

function fail(code: number, message: string): void {
  console.error(message);
  process.exitCode = code;
}

/** The first line of piped input (without its line break), or a hidden prompt, twice, on a terminal. */
async function readNewPassword(email: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return firstLine(await readAll(process.stdin));
  const first = await promptHidden(`New password for ${email}: `);
  const second = await promptHidden('Again: ');
  return first === second ? first : undefined;
}

/** Longer than any password the rules accept: piped input past it is not read (a stray file, /dev/zero). */
const MAX_INPUT_BYTES = 64 * 1024;

/** Piped input up to its first line break or MAX_INPUT_BYTES, whichever comes first. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.length >= MAX_INPUT_BYTES || /\r?\n/.test(text)) break;
  }
  return text.slice(0, MAX_INPUT_BYTES);
}

function firstLine(text: string): string {
  const end = text.search(/\r?\n/);
  return end === -1 ? text : text.slice(0, end);
}

/** Reads one line from the terminal in raw mode, echoing nothing; Ctrl-C aborts. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve) => {
    let answer = '';
    const onData = (keys: string) => {
      for (const key of keys) {
        if (key === '\r' || key === '\n' || key === '\u0004') {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          resolve(answer);
          return;
        }
        if (key === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        answer = key === '\u007f' || key === '\b' ? [...answer].slice(0, -1).join('') : answer + key;
      }
    };
    stdin.on('data', onData);
  });
}
