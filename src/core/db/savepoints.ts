import { CompiledQuery, type DatabaseConnection } from 'kysely';

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const run = async (connection: DatabaseConnection, text: string) => {
  await connection.executeQuery(CompiledQuery.raw(text));
};

/**
 * Kysely's savepoint commands (`trx.savepoint()`), the same SQL on PostgreSQL and SQLite, for our two
 * drivers (Kysely's own command builder is not part of its public API).
 */
export const savepointCommands = {
  savepoint: (connection: DatabaseConnection, name: string) => run(connection, `savepoint ${quoted(name)}`),
  rollbackToSavepoint: (connection: DatabaseConnection, name: string) => run(connection, `rollback to ${quoted(name)}`),
  releaseSavepoint: (connection: DatabaseConnection, name: string) => run(connection, `release ${quoted(name)}`),
};
