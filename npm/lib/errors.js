// Error normalisation shared by both backends: every error that leaves horosvec is a JS `Error`
// whose `code` is one of the stable codes of docs/errors.md.

const CODED = /^(HV_[A-Z_]+): ([\s\S]*)$/;
// napi-rs argument-conversion statuses: the value had the wrong JS type.
const NAPI_ARG = new Set(['InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected',
  'NumberExpected', 'BooleanExpected', 'ArrayExpected', 'BigintExpected', 'DateExpected', 'ArrayBufferExpected']);

/** An `Error` with a stable `code`. */
export function hvError(code, message, cause) {
  const e = new Error(`${code}: ${message}`, cause === undefined ? undefined : { cause });
  e.code = code;
  return e;
}

/** Gives any error thrown by a backend its stable `code` (idempotent). */
export function toHvError(e) {
  if (e && typeof e === 'object' && typeof e.code === 'string' && e.code.startsWith('HV_')) return e;
  const msg = e && typeof e.message === 'string' ? e.message : String(e);
  const m = CODED.exec(msg);
  if (m) {
    const err = e instanceof Error ? e : new Error(msg);
    try { err.code = m[1]; return err; } catch { return hvError(m[1], m[2], e); }
  }
  if (e && NAPI_ARG.has(e.code)) return hvError('HV_INVALID_ARGUMENT', msg, e);
  // an input whose ArrayBuffer was detached (transferred) cannot be read: the caller's mistake
  if (e instanceof TypeError && /detached/i.test(msg)) return hvError('HV_INVALID_ARGUMENT', msg, e);
  return hvError('HV_INTERNAL', msg, e);
}

/** Runs `f`, rethrowing any error with its stable code. */
export function guard(f) {
  try {
    return f();
  } catch (e) {
    throw toHvError(e);
  }
}
