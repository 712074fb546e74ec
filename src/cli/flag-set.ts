/**
 * A group of command-line flags declared once, as settings (commander's flag syntax and a zod
 * schema whose description is the help): from it come the commander options and the typed values
 * read back from what commander parsed, a bad one named by its flag. The run options and render's
 * own flags are each one.
 */
import { Option, type OptionValues } from 'commander';
import { z } from 'zod';
import { PdfRenderError, labelFieldErrors } from '../errors.js';
import { parseWith } from '../request.js';

/** One flag: its syntax, and the schema that types and validates its value (its description is the help). */
export interface FlagSetting {
  /** Commander flag syntax ("-o, --output <file>"). */
  flag: string;
  schema: z.ZodType;
}

type Shape<S extends Record<string, FlagSetting>> = { [K in keyof S]: S[K]['schema'] };

/** How a group's help differs from its schemas' descriptions, and which flags collect every value given. */
export interface FlagSetHelp<K extends string> {
  /** The help of a flag from its key and its schema's description. */
  help?: (key: K, description: string) => string;
  /** Flags that may be repeated: each value is collected into a list. */
  repeatable?: readonly K[];
}

/** The schema, commander options and typed reader of a group of flags. */
export function flagSet<S extends Record<string, FlagSetting>>(settings: S, shown: FlagSetHelp<keyof S & string> = {}) {
  type Key = keyof S & string;
  const keys = Object.keys(settings) as Key[];
  const byKey: Record<Key, FlagSetting> = settings;
  const schema = z.object(Object.fromEntries(keys.map((key) => [key, byKey[key].schema])) as Shape<S>);
  type Values = z.output<typeof schema>;
  // Commander names each value after its flag (--allow-host is allowHost); the settings have names of their own.
  const attributes = keys.map((key) => [key, new Option(byKey[key].flag).attributeName()] as const);
  // The flag an error names: the long form of "-o, --output <file>".
  const labels = new Map(keys.map((key) => [key as string, new Option(byKey[key].flag).long ?? byKey[key].flag]));

  /** Validate values keyed by setting; a bad one is VALIDATION_FAILED naming its flag. */
  const parse = (values: Record<string, unknown>): Values => {
    try {
      return parseWith(schema, Object.fromEntries(keys.map((key) => [key, values[key]])));
    } catch (error) {
      if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
      throw labelFieldErrors(error.fieldErrors, (field) => labels.get(field));
    }
  };

  return {
    schema,
    parse,
    /** The commander options of `only` (every flag by default), in the order given. */
    options(only: readonly Key[] = keys): Option[] {
      return only.map((key) => {
        const description = byKey[key].schema.description ?? key;
        const option = new Option(byKey[key].flag, shown.help ? shown.help(key, description) : description);
        if (shown.repeatable?.includes(key))
          option.argParser((value: string, previous: string[] = []) => [...previous, value]);
        return option;
      });
    },
    /** The typed values from commander's parsed options. */
    read(parsed: OptionValues): Values {
      return parse(Object.fromEntries(attributes.map(([key, attribute]) => [key, parsed[attribute]])));
    },
  };
}
