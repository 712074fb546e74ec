/**
 * waitForExpression: exactly one JavaScript expression, checked with a parser rather than trusted as
 * text, and run in the page by a fixed wrapper that can hand back only a boolean, or a short account
 * of a throw. Pasted into a wrapper unchecked, `1)))(), ((( ()=>VALUE` closed it and handed VALUE
 * (a 256 MB string, say) back through DevTools (issue 27 §3).
 */
import vm from 'node:vm';
import { parse, parseExpressionAt, tokenizer, tokTypes, type Node, type Options } from 'acorn';

// The expression runs inside an async function, so it may await.
const parseOptions: Options = { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true };

/** The most characters of a thrown error's name and of its message that come back from the page. */
export const maxThrownChars = { name: 60, message: 300 } as const;

const head = '(async () => {\n  try {\n    return !!(await (\n';
// The newline ends a trailing line comment; the wrapper's code uses only operators, `typeof` and
// indexing of primitive strings, none of which a document can redefine (it can redefine Boolean,
// String and their prototypes' methods), so what comes back is a boolean or a string this short.
const tail = `\n));
  } catch (thrown) {
    const clip = (value, max) => {
      let out = '';
      if (typeof value === 'string') for (let i = 0; i < value.length && i < max; i += 1) out += value[i];
      return out;
    };
    let name = '';
    let message = '';
    try {
      const error = typeof thrown === 'object' && thrown !== null;
      name = error ? clip(thrown.name, ${maxThrownChars.name}) : '';
      message = clip(error ? thrown.message : thrown, ${maxThrownChars.message});
    } catch {}
    return name + (name && message ? ': ' : '') + message || 'an exception';
  }
})()`;

/**
 * Why `expression` is not exactly one JavaScript expression, or null when it is. It must parse as
 * one expression that ends where the text does (bar whitespace and comments); then, as a check on
 * that parse, the wrapper around it must parse with the expression exactly in its slot, and compile
 * in V8.
 */
export function expressionProblem(expression: string): string | null {
  let node: Node;
  try {
    node = parseExpressionAt(expression, 0, parseOptions);
  } catch (error) {
    return `must be a JavaScript expression (${(error as Error).message})`;
  }
  if (!onlyCommentsAfter(expression, node.end))
    return `must be exactly one JavaScript expression: it ends at character ${node.end + 1}, and more follows it`;
  const script = waitExpressionScript(expression);
  const slot = awaitedSlot(script);
  if (slot?.start !== head.length + node.start || slot.end !== head.length + node.end)
    return 'must be exactly one JavaScript expression';
  // And V8, which runs it, must compile it (compiled, never run): a typo is a 422 naming the field
  // rather than a render that waits out its deadline.
  try {
    new vm.Script(script);
  } catch (error) {
    return `must be a JavaScript expression (${(error as Error).message})`;
  }
  return null;
}

/** The script that runs an expression `expressionProblem` accepted: true, false, or the text of a throw. */
export function waitExpressionScript(expression: string): string {
  return `${head}${expression}${tail}`;
}

// True when only whitespace and comments follow `end` (a token after it, or an unclosed comment, is not).
function onlyCommentsAfter(text: string, end: number): boolean {
  try {
    return tokenizer(text.slice(end), parseOptions).getToken().type === tokTypes.eof;
  } catch {
    return false;
  }
}

// The awaited expression's node in the wrapper, or undefined when the wrapper does not parse as one
// statement of that shape.
function awaitedSlot(script: string): Node | undefined {
  let program;
  try {
    program = parse(script, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch {
    return undefined;
  }
  const [statement, ...more] = program.body;
  if (more.length > 0 || statement?.type !== 'ExpressionStatement') return undefined;
  const call = statement.expression;
  if (call.type !== 'CallExpression' || call.callee.type !== 'ArrowFunctionExpression') return undefined;
  const body = call.callee.body;
  if (body.type !== 'BlockStatement' || body.body.length !== 1 || body.body[0]?.type !== 'TryStatement')
    return undefined;
  const returned = body.body[0].block.body;
  if (returned.length !== 1 || returned[0]?.type !== 'ReturnStatement') return undefined;
  let value = returned[0].argument;
  for (let bang = 0; bang < 2; bang += 1)
    value = value?.type === 'UnaryExpression' && value.operator === '!' ? value.argument : undefined;
  return value?.type === 'AwaitExpression' ? value.argument : undefined;
}
