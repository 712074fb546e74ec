/**
 * The statements written once for both stores (statements/) name their parameters `:name`; the
 * PostgreSQL driver takes them numbered. `named` turns one into the other, and an object of
 * parameters into the values in their order. A name used twice is one parameter. Quoted strings
 * and `::type` casts are left as they are.
 */
const token = /'(?:[^']|'')*'|"[^"]*"|(?<![:\w]):([A-Za-z_]\w*)/g;

interface Numbered {
  text: string;
  names: string[];
}

const compiled = new Map<string, Numbered>();

function numbered(statement: string): Numbered {
  let found = compiled.get(statement);
  if (found) return found;
  const names: string[] = [];
  const text = statement.replace(token, (match, name: string | undefined) => {
    if (name === undefined) return match;
    const index = names.indexOf(name);
    return `$${index >= 0 ? index + 1 : names.push(name)}`;
  });
  found = { text, names };
  compiled.set(statement, found);
  return found;
}

/** `statement` numbered, and the values of `params` in its order: the text and values the driver takes. A parameter not given is an error naming it. */
export function named(statement: string, params: Record<string, unknown> = {}): [string, unknown[]] {
  const { text, names } = numbered(statement);
  return [
    text,
    names.map((name) => {
      if (!(name in params)) throw new Error(`the statement's parameter :${name} was not given`);
      return params[name];
    }),
  ];
}
