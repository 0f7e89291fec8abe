// Error normalisation shared by both backends: every error that leaves horosvec is a
// `HorosvecError` (an `Error`) whose `code` is one of the stable codes of docs/errors.md, or one
// of the JS layer's own (JS_ONLY_CODES).

const CODED = /^(HV_[A-Z_]+): ([\s\S]*)$/;
// napi-rs argument-conversion statuses: the value had the wrong JS type.
const NAPI_ARG = new Set(['InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected',
  'NumberExpected', 'BooleanExpected', 'ArrayExpected', 'BigintExpected', 'DateExpected', 'ArrayBufferExpected']);

/** Codes raised by the JS layer only (not by the core, so not in core/src/error.rs's table). */
export const JS_ONLY_CODES = Object.freeze(['HV_ALREADY_EXISTS', 'HV_WORKER_FAILED']);

// Marks horosvec's errors across copies of this module (a bundle that inlined the package twice,
// `horosvec` beside `horosvec/wasm` from another install): `isHorosvecError` checks the mark.
const BRAND = Symbol.for('horosvec.HorosvecError');

/** The class of every error horosvec raises: an `Error` with a stable `code` (docs/errors.md). */
export class HorosvecError extends Error {
  /**
   * @param {string} code an `HV_*` code
   * @param {string} message the text after `code: ` in `message`
   * @param {{ cause?: unknown }} [options]
   */
  constructor(code, message, options) {
    super(`${code}: ${message}`, options);
    this.code = code;
  }
}
// `instanceof` also holds for the errors of another copy of the package (same mark). Defined
// outside the class body: a self-reference inside it makes esbuild rename the bundled class
// (`_HorosvecError` in stack traces and util.inspect).
Object.defineProperty(HorosvecError, Symbol.hasInstance, {
  value(e) {
    return e !== null && typeof e === 'object' && e[BRAND] === true && (this === HorosvecError || Function.prototype[Symbol.hasInstance].call(this, e));
  },
});
Object.defineProperty(HorosvecError.prototype, BRAND, { value: true });
Object.defineProperty(HorosvecError.prototype, 'name', { value: 'HorosvecError', writable: true, configurable: true });

/** Whether `e` is an error horosvec raised, with code `code` when given. */
export function isHorosvecError(e, code) {
  return e instanceof HorosvecError && (code === undefined || e.code === code);
}

/** A `HorosvecError` with a stable `code`. */
export function hvError(code, message, cause) {
  return new HorosvecError(code, message, cause === undefined ? undefined : { cause });
}

// An Error that already says its code becomes a HorosvecError in place (keeping its stack and
// identity), or, when it cannot be changed (frozen, not an Error), a new one with it as the cause.
function adopt(e, code, message) {
  if (e instanceof Error && Object.isExtensible(e)) {
    try {
      Object.setPrototypeOf(e, HorosvecError.prototype);
      if (e.code !== code) e.code = code;
      if (e.code === code) return e;
    } catch {
      // fall through
    }
  }
  const m = CODED.exec(message);
  return hvError(code, m && m[1] === code ? m[2] : message, e);
}

/** Gives any error thrown by a backend its stable `code` and class (idempotent). */
export function toHvError(e) {
  if (e instanceof HorosvecError) return e;
  const msg = describe(e);
  if (e && typeof e === 'object' && typeof e.code === 'string' && e.code.startsWith('HV_')) return adopt(e, e.code, msg);
  const m = CODED.exec(msg);
  if (m) return adopt(e, m[1], msg);
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
