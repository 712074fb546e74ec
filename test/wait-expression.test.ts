/**
 * waitForExpression is exactly one expression (issue 27 §3): text that would close the wrapper it
 * runs in, or add a statement after it, is refused at validation naming the field; any expression
 * is accepted whole, comments and all. No browser: the page's side is in wait-expression-page.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseRenderRequest } from '../src/request.js';
import { expressionProblem, waitExpressionScript } from '../src/wait-expression.js';

// The escape of the issue: closes the async wrapper, then hands back VALUE by value.
const escape = '1)))(), ((( ()=>VALUE';

describe('waitForExpression is exactly one expression', () => {
  it('refuses the issue escape at validation, naming the field', () => {
    expect(() => parseRenderRequest({ htmlContent: 'x', waitForExpression: escape })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        fieldErrors: { waitForExpression: [expect.stringMatching(/^must be exactly one JavaScript expression/)] },
      }),
    );
  });

  it.each([
    escape,
    "'x'.repeat(2 ** 28)))(), ((( () => 1",
    'window.ready; fetch("/x")',
    'a b',
    '})(); (() => {',
    'true /* unclosed',
    'x\n)); globalThis.y = 1; ((',
    '',
    '   ',
    '// only a comment',
  ])('refuses %j', (expression) => {
    expect(expressionProblem(expression)).toMatch(/^must be (a|exactly one) JavaScript expression/);
  });

  it.each([
    "document.fonts.status === 'loaded'",
    'window.ready',
    'window.ready === true // set by the report script',
    '/* leading */ window.ready',
    'await document.fonts.ready, true',
    'new Promise((resolve) => setTimeout(() => resolve(true), 10))',
    '(() => { try { return check(); } catch { return false; } })()',
    '`a ${"}"} b`.length > 0',
    'x\n--> a comment to V8 and acorn alike',
  ])('accepts %j, whole, in its slot', (expression) => {
    expect(expressionProblem(expression)).toBeNull();
    expect(waitExpressionScript(expression)).toContain(expression);
  });
});
