/**
 * Formula injection (DECISIONS §18): a spreadsheet runs a cell that begins with `=`, `+`, `-`, `@`, a
 * tab or a carriage return as a formula, so export prefixes such a text with `'` and import strips it
 * again, making a round trip lossless.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function escapeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The text as it was before `escapeFormula`: a leading `'` is dropped only before a formula's first character. */
export function unescapeFormula(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;
}
