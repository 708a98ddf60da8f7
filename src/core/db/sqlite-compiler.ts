import { SqliteQueryCompiler, type LimitNode, type ValueNode } from 'kysely';

/**
 * Kysely's SQLite compiler with one change: a bound LIMIT is written `limit ? + 0`.
 *
 * SQLite (3.53, node:sqlite's) plans a statement with the value bound to its LIMIT parameter, and so
 * marks the statement to be compiled again whenever that parameter is bound; node:sqlite binds every
 * parameter on every run, so each run of a statement with `limit ?` parsed and planned it again (a
 * large share of a simple page read's time, and most of the products list's extra cost:
 * bench/RESULTS.md, "Changes", 55). An expression is not a value the planner reads, so the statement
 * is compiled once like any other and planned without knowing the page's size, as SQLite did before it
 * began to read it. A literal LIMIT (`sql.lit`) is written as it is.
 */
export class SqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    super.visitLimit(node);
    if (node.limit.kind === 'ValueNode' && !(node.limit as ValueNode).immediate) this.append(' + 0');
  }
}
