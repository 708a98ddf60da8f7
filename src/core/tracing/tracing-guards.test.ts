import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * DECISIONS §17, "the service writes its own spans, not its own SDK": what would bring a second SDK back.
 * Each guard reads every runtime source file (src/, tests left out) and names the file and what it found.
 */

const ROOT = new URL('../../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

function runtimeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const sources = runtimeFiles(SRC).map((path) => ({
  name: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

function parse(name: string, text: string): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
}

/** Every module a file imports, statically or with `import()`. */
function importsOf(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The package a module specifier names (`@scope/name` or `name`), undefined for a relative or node: one. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The API's and the SDK's types a class of ours must not be: a tracer, a span, a context, an id generator, an exporter. */
const SDK_PART =
  /^(Span|Tracer|TracerProvider|Context|SpanContext|IdGenerator|ReadableSpan)$|TracerProvider$|Exporter(Base)?$/;

/** `file`'s classes that extend or implement a type imported from an OpenTelemetry package, as `Class: Type`. */
function sdkPartsIn(file: ts.SourceFile): string[] {
  // Local name -> the name the OpenTelemetry package exports (`*` for a namespace import).
  const fromOtel = new Map<string, string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.startsWith('@opentelemetry/')) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) fromOtel.set(bindings.name.text, '*');
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements)
        fromOtel.set(element.name.text, (element.propertyName ?? element.name).text);
  }
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      for (const clause of node.heritageClauses ?? [])
        for (const type of clause.types) {
          const expression = type.expression;
          let exported: string | undefined;
          if (ts.isIdentifier(expression)) exported = fromOtel.get(expression.text);
          else if (
            ts.isPropertyAccessExpression(expression) &&
            ts.isIdentifier(expression.expression) &&
            fromOtel.get(expression.expression.text) === '*'
          )
            exported = expression.name.text;
          if (exported !== undefined && SDK_PART.test(exported))
            found.push(`${node.name?.text ?? '(anonymous)'}: ${exported}`);
        }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Whether a package's own README says it is for internal use (the OTLP transformer and exporter base do). */
function internalUse(pkg: string): boolean {
  const readme = join(ROOT, 'node_modules', pkg, 'README.md');
  return existsSync(readme) && /intended for internal use/i.test(readme && readFileSync(readme, 'utf8'));
}

/** What only a protobuf encoder writes: a field's tag (`field << 3 | wire type`), a varint's continuation bit. */
const PROTOBUF_ENCODING = [/\bvarint\b/i, /\bwire_?type\b/i, /<<\s*3\s*\)?\s*\|/, /\|\s*0x80\b/];

describe('tracing guards: the service writes its own spans, not its own SDK', () => {
  it('has no runtime class that is an OpenTelemetry span, tracer, provider, context, span context, id generator or exporter', () => {
    const found = sources.flatMap(({ name, text }) => sdkPartsIn(parse(name, text)).map((part) => `${name}: ${part}`));
    assert.deepEqual(found, [], 'the SDK makes these; use its provider, processor and exporters');
  });

  it('imports no package at runtime whose README calls it internal-use, nor lists one in dependencies', () => {
    const found = sources.flatMap(({ name, text }) =>
      importsOf(parse(name, text))
        .map(packageOf)
        .filter((pkg): pkg is string => pkg !== undefined && internalUse(pkg))
        .map((pkg) => `${name}: ${pkg}`),
    );
    assert.deepEqual(found, []);
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.deepEqual(Object.keys(dependencies).filter(internalUse), [], 'package.json dependencies');
  });

  it('writes no protobuf by hand: no field tags, varints or wire types in runtime code', () => {
    const found = sources.flatMap(({ name, text }) =>
      PROTOBUF_ENCODING.filter((pattern) => pattern.test(text)).map((pattern) => `${name}: ${String(pattern)}`),
    );
    assert.deepEqual(found, [], 'the official OTLP exporters encode spans');
  });

  it('finds what it guards against (each check on a sample that breaks it)', () => {
    const sample = parse(
      'sample.ts',
      `import type { Span as ApiSpan } from '@opentelemetry/api';
       import * as sdk from '@opentelemetry/sdk-trace-node';
       class Mine implements ApiSpan {}
       class Ids implements sdk.IdGenerator {}
       class Fine implements Iterable<number> {}
       const load = () => import('@opentelemetry/otlp-transformer');`,
    );
    assert.deepEqual(sdkPartsIn(sample), ['Mine: Span', 'Ids: IdGenerator']);
    assert.ok(
      importsOf(sample)
        .map(packageOf)
        .some((pkg) => pkg !== undefined && internalUse(pkg)) ||
        !existsSync(join(ROOT, 'node_modules/@opentelemetry/otlp-transformer')),
    );
    assert.ok(PROTOBUF_ENCODING.some((pattern) => pattern.test('const tag = (field << 3) | wire;')));
  });
});
