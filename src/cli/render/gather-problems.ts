/**
 * The checks `pdfrender render` makes before rendering, run side by side so that one mistake does not
 * hide the next: a bad flag, an unreadable header file and a missing input are reported in one go.
 */
import { PdfRenderError, type FieldErrors } from '../../errors.js';

/**
 * Await every step; when any failed, throw one error holding each failure's lines, in the steps'
 * order (VALIDATION_FAILED with every field error if one was a validation failure). An error that
 * is not a PdfRenderError (a fault, not a mistake) is thrown as it is.
 */
export async function gatherProblems<T extends readonly unknown[]>(steps: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const errors = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  if (errors.length === 0)
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
  const fault = errors.find((error) => !(error instanceof PdfRenderError));
  if (fault !== undefined || errors.length === 1) throw fault ?? errors[0];
  const problems = errors as PdfRenderError[];
  const fieldErrors: FieldErrors = Object.assign({}, ...problems.map((problem) => problem.fieldErrors ?? {}));
  const validation = problems.find((problem) => problem.code === 'VALIDATION_FAILED');
  return Promise.reject(
    new PdfRenderError(validation?.code ?? problems[0]!.code, problems.map((problem) => problem.message).join('\n'), {
      ...(validation && { fieldErrors }),
    }),
  );
}
