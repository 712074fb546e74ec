/**
 * A zod schema as the OpenAPI document embeds it: JSON Schema 2020-12 without a $schema of its own,
 * and a field taking an object or a string of JSON shown with the object's keys.
 */
import { z } from 'zod';
import { jsonObjectShapes } from '../../fields.js';

/** The JSON Schema of a zod schema as the document embeds it (no $schema of its own). */
export function embedded(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _, ...generated } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: showObjectKeys,
  }) as Record<string, unknown>;
  return generated;
}

/** A field taking an object or a string of JSON (metadata) shown as that object, keys and all, or the string. */
function showObjectKeys(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const shape = jsonObjectShapes.get(ctx.zodSchema as z.ZodType);
  if (!shape) return;
  const object = embedded(shape, 'input');
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, {
    anyOf: [object, { type: 'string', description: 'the same object as a string of JSON (in forms)' }],
  });
}
