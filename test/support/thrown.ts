// For unit tests: the ApiError a call throws, so that its code, param and message can be asserted.
import { ApiError } from '#platform/errors.ts';

export function thrownApiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
