import { useEffect, useState } from 'react';
import {
  BooleanInput,
  Loading,
  maxLength,
  maxValue,
  minLength,
  minValue,
  NumberInput,
  required,
  SelectInput,
  TextInput,
  type Validator,
} from 'react-admin';

/** A JSON Schema of the document, as far as forms need it. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  items?: Schema;
}

interface Document {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

let document: Promise<Document> | undefined;

/** The v2 OpenAPI document (public), read once: every form's fields come from its request bodies. */
function loadDocument(): Promise<Document> {
  document ??= fetch('/api/v2/openapi.json', { headers: { accept: 'application/json' } }).then(
    (response) => response.json() as Promise<Document>,
  );
  return document;
}

function resolve(schema: Schema | undefined, doc: Document): Schema | undefined {
  if (schema?.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc);
  return schema;
}

/** The JSON body schema of `method path`, its refs resolved. */
export function useBodySchema(path: string | undefined, method: 'post' | 'patch'): Schema | undefined | null {
  const [schema, setSchema] = useState<Schema | undefined | null>(undefined);
  useEffect(() => {
    if (!path) return setSchema(null);
    let live = true;
    void loadDocument().then((doc) => {
      const body = doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema;
      const resolved = resolve(body, doc);
      const properties = Object.fromEntries(
        Object.entries(resolved?.properties ?? {}).map(([name, property]) => [name, resolve(property, doc) ?? {}]),
      );
      if (live) setSchema(resolved ? { ...resolved, properties } : null);
    });
    return () => {
      live = false;
    };
  }, [path, method]);
  return schema;
}

const typesOf = (schema: Schema): string[] =>
  schema.anyOf ? schema.anyOf.flatMap(typesOf) : [schema.type ?? []].flat().filter(Boolean);

function enumOf(schema: Schema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  const consts = schema.anyOf?.map((option) => option.const).filter((value) => value !== undefined);
  return consts?.length ? consts : undefined;
}

/** One input for a property, with the schema's rules as validators (the server still has the last word). */
function inputFor(name: string, schema: Schema, isRequired: boolean, onCreate: boolean) {
  const validate: Validator[] = [];
  if (isRequired && onCreate) validate.push(required());
  if (schema.minLength) validate.push(minLength(schema.minLength));
  if (schema.maxLength) validate.push(maxLength(schema.maxLength));
  if (schema.minimum !== undefined) validate.push(minValue(schema.minimum));
  if (schema.maximum !== undefined) validate.push(maxValue(schema.maximum));
  const types = typesOf(schema);
  const nullable = types.includes('null');
  const common = { key: name, source: name, validate, helperText: schema.description ?? false };
  const choices = enumOf(schema);
  if (choices)
    return <SelectInput {...common} choices={choices.map((value) => ({ id: value, name: String(value) }))} />;
  if (types.includes('boolean')) return <BooleanInput {...common} />;
  if (types.includes('integer') || types.includes('number'))
    return <NumberInput {...common} step={types.includes('integer') ? 1 : 0.01} />;
  if (types.includes('array'))
    return (
      <TextInput
        {...common}
        format={(value: unknown) => (Array.isArray(value) ? value.join(', ') : (value as string))}
        parse={(value: string) =>
          value
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean)
        }
        helperText="A comma list"
      />
    );
  return (
    <TextInput
      {...common}
      multiline={(schema.maxLength ?? 0) > 500}
      parse={nullable ? (value: string) => (value === '' ? null : value) : undefined}
    />
  );
}

/** The inputs of a create (`post`) or edit (`patch`) form, generated from the operation's body schema. */
export function SchemaInputs({
  path,
  method,
  omit = [],
}: {
  path?: string;
  method: 'post' | 'patch';
  omit?: string[];
}) {
  const schema = useBodySchema(path, method);
  if (schema === undefined) return <Loading />;
  if (schema === null) return null;
  const requiredFields = schema.required ?? [];
  return (
    <>
      {Object.entries(schema.properties ?? {})
        .filter(([name]) => !omit.includes(name))
        .map(([name, property]) => inputFor(name, property, requiredFields.includes(name), method === 'post'))}
    </>
  );
}

/** Writable fields of `patch path` (a PATCH sends only the fields that changed among these). */
export function useWritableFields(path: string | undefined): string[] | undefined {
  const schema = useBodySchema(path, 'patch');
  return schema ? Object.keys(schema.properties ?? {}) : undefined;
}
