/**
 * A zod schema as the OpenAPI document embeds it: JSON Schema 2020-12 without a $schema of its own,
 * a field taking an object or a string of JSON shown with the object's keys, and the schemas that
 * are components of their own referred to rather than copied.
 */
import { z } from 'zod';
import { jsonObjectShapes, strictJsonTypes } from '../../fields.js';

/**
 * The JSON Schema of a zod schema as the document embeds it (no $schema of its own); a part of it
 * that is one of `components` (by name) is a $ref to that component.
 */
export function embedded(
  schema: z.ZodType,
  io: 'input' | 'output' = 'output',
  components: Record<string, z.ZodType> = {},
  options: { strict?: boolean } = {},
): Record<string, unknown> {
  const names = new Map(Object.entries(components).map(([name, component]) => [component as unknown, name]));
  const { $schema: _, ...generated } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (ctx) => {
      const name = ctx.path.length > 0 ? names.get(ctx.zodSchema) : undefined;
      const strict = options.strict ? strictJsonTypes.get(ctx.zodSchema as unknown as z.ZodType) : undefined;
      if (name) replace(ctx.jsonSchema, { $ref: `#/components/schemas/${name}` });
      // A typed client sends JSON's own booleans and numbers; the strings forms send are for forms.
      else if (strict) replace(ctx.jsonSchema, { type: strict });
      else showObjectKeys(ctx);
    },
  }) as Record<string, unknown>;
  return generated;
}

// In place: the generator keeps the object it handed the override.
function replace(target: Record<string, unknown>, value: Record<string, unknown>): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, value);
}

/** A field taking an object or a string of JSON (metadata) shown as that object, keys and all, or the string. */
function showObjectKeys(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const shape = jsonObjectShapes.get(ctx.zodSchema as z.ZodType);
  if (!shape) return;
  replace(ctx.jsonSchema, {
    anyOf: [
      embedded(shape, 'input'),
      { type: 'string', description: 'the same object as a string of JSON (in forms)' },
    ],
  });
}
