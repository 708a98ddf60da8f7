/**
 * Whether a name may be written into a statement as it is: a table, column, index, statistics or
 * backfill name of the code's own (never a client's, DECISIONS §13), in lower case, digits and `_`, not
 * starting with a digit, so it needs no quoting and cannot end or extend the statement.
 */
export const isPlainIdentifier = (name: string): boolean => /^[a-z_][a-z0-9_]*$/.test(name);
