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

// Reading a call's arguments runs the caller's own code: getters, Proxy traps, toJSON. What that
// code throws is the caller's mistake, not a bug inside horosvec, so the step that reads (and
// normalises) the arguments runs inside `readInput`, which turns such an exception into
// HV_INVALID_ARGUMENT with the original as `cause`. The JS layer's own checks in that step raise
// `inputError`s, tagged with the `readInput` call they belong to, which pass through unchanged.
// Anything else counts as the caller's, even an error with an HV_ code (one a nested horosvec
// call made from the caller's getter raised belongs to that call, not to this one). Backend
// calls stay outside `readInput`, so their errors keep their codes. One `readInput` per call:
// our own code never nests them.
const owner = new WeakMap();
let reading = null;

/** An `Error` with a stable `code`, raised by a check of the input inside `readInput`. */
export function inputError(code, message, cause) {
  const e = hvError(code, message, cause);
  if (reading !== null) owner.set(e, reading);
  return e;
}

/** Runs `f`, which reads the caller's arguments; an exception from the caller's code becomes HV_INVALID_ARGUMENT. */
export function readInput(f) {
  const outer = reading;
  const self = {};
  reading = self;
  try {
    return f();
  } catch (e) {
    if (owner.get(e) === self) throw e;
    throw hvError('HV_INVALID_ARGUMENT', `an argument's own code (a getter, Proxy trap or toJSON) threw while it was read: ${describe(e)}`, e);
  } finally {
    reading = outer;
  }
}

// The message of what the caller's code threw, without running more of it unguarded (a Proxy
// thrown as the exception, a throwing `message` getter or toString).
function describe(e) {
  try {
    const m = e instanceof Error ? e.message : e;
    return typeof m === 'string' ? m : String(m);
  } catch {
    return 'an exception that cannot be printed';
  }
}
