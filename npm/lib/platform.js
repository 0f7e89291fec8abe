// Which native addon this process can use, and why not when it can't: pure functions over a
// description of the host ({ platform, arch, libc, glibcVersion }), so they are table-tested,
// plus `hostInfo()`, which reads that description from the running process without throwing.
// The loader (`node.js`) tries the checkout's `native/horosvec.<key>.node`, then the package
// `@horosvec/<key>` (a name computed here, so bundlers trace no `.node` file), else wasm with
// the reason given by these functions.

/** The prebuilt addons: napi-rs key → Rust target, and the os / cpu / libc npm installs it on. */
export const PLATFORMS = {
  'linux-x64-gnu': { target: 'x86_64-unknown-linux-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', glibcFloor: '2.28' },
  'linux-x64-musl': { target: 'x86_64-unknown-linux-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
  'linux-arm64-gnu': { target: 'aarch64-unknown-linux-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc', glibcFloor: '2.28' },
  'linux-arm64-musl': { target: 'aarch64-unknown-linux-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'darwin-x64': { target: 'x86_64-apple-darwin', os: 'darwin', cpu: 'x64' },
  'darwin-arm64': { target: 'aarch64-apple-darwin', os: 'darwin', cpu: 'arm64' },
  'win32-x64-gnu': { target: 'x86_64-pc-windows-gnu', os: 'win32', cpu: 'x64' },
};

export const packageName = (key) => `@horosvec/${key}`;
export const binaryName = (key) => `horosvec.${key}.node`;

/**
 * The napi-rs key of a host (`linux-x64-gnu`, `darwin-arm64`, `freebsd-x64`, …), whether or not
 * a prebuilt addon exists for it: a build from source is named by it too.
 */
export function hostKey({ platform, arch, libc }) {
  if (platform === 'linux') return `linux-${arch}-${libc === 'musl' ? 'musl' : 'gnu'}`;
  // Windows: the MinGW-w64 build (MSVC's CRT and SDK cannot be fetched here); napi is a C ABI,
  // so the MSVC-built node.exe loads it.
  if (platform === 'win32') return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

// -1, 0 or 1 as dotted version a is below, at or above b.
function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] || 0) - (y[i] || 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/**
 * The prebuilt package for this host: `{ key, pkg }`, or `{ key, pkg: null, kind, reason }`
 * when there is none that can run here (`kind` "no-prebuilt" or "old-glibc").
 */
export function prebuiltFor(host) {
  const key = hostKey(host);
  const p = Object.hasOwn(PLATFORMS, key) ? PLATFORMS[key] : undefined;
  if (p === undefined) return { key, pkg: null, kind: 'no-prebuilt', reason: `no prebuilt native addon for ${key}` };
  if (p.glibcFloor && host.glibcVersion && compareVersions(host.glibcVersion, p.glibcFloor) < 0) {
    return { key, pkg: null, kind: 'old-glibc', reason: `glibc ${host.glibcVersion} is older than ${p.glibcFloor}, the floor of the prebuilt ${key} addon` };
  }
  return { key, pkg: packageName(key) };
}

/** The first line of an error's message (the load error's own words). */
export function firstLine(e) {
  const m = e && typeof e === 'object' && 'message' in e ? e.message : e;
  return String(m).split('\n')[0].trim();
}

// Deno refuses to load an addon without --allow-ffi (NotCapable; PermissionDenied before 2.0).
const isPermissionError = (e) => e !== null && typeof e === 'object' && (e.name === 'NotCapable' || e.name === 'PermissionDenied');

/**
 * Why an addon file cannot be loaded safely, or null: a 64-bit ELF file (Linux) shorter than its
 * header says (its section header table ends past the end of the file). dlopen maps such a
 * truncated file and the process dies of SIGBUS, so it is refused before `require`. `header` is
 * the file's first 64 bytes (or fewer), `size` its length; anything else gives null.
 */
export function truncatedElf(header, size) {
  if (header.length < 64 || header[0] !== 0x7f || header[1] !== 0x45 || header[2] !== 0x4c || header[3] !== 0x46) return null;
  if (header[4] !== 2 || header[5] !== 1) return null; // not ELF64 little-endian: dlopen's own error
  const v = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const end = Number(v.getBigUint64(0x28, true)) + v.getUint16(0x3a, true) * v.getUint16(0x3c, true);
  return end > size ? `the file is truncated (${size} bytes; its ELF header describes ${end})` : null;
}

/**
 * Loads the native addon: the checkout's build `devPath` if it exists, else the prebuilt package.
 * `io` is `{ exists(path), require(specifier), resolve(specifier), check?(path) }`; `check`
 * returns why a file must not be loaded (truncatedElf) or null. Returns
 * `{ binding, from }` or `{ binding: null, kind, reason }`, `kind` one of "no-prebuilt",
 * "old-glibc", "not-installed", "permission", "load-error".
 */
export function loadNative(host, devPath, io) {
  let devFailure = null;
  // a refused file is a load error with its path, as dlopen's own errors are
  const refuse = (path) => {
    const why = io.check ? io.check(path) : null;
    if (why) throw new Error(`${path}: ${why}`);
  };
  if (devPath && io.exists(devPath)) {
    try {
      refuse(devPath);
      return { binding: io.require(devPath), from: devPath };
    } catch (e) {
      devFailure = { binding: null, kind: isPermissionError(e) ? 'permission' : 'load-error', reason: firstLine(e) };
    }
  }
  const pre = prebuiltFor(host);
  if (pre.pkg === null) return devFailure ?? { binding: null, kind: pre.kind, reason: pre.reason };
  try {
    io.resolve(`${pre.pkg}/package.json`);
  } catch (e) {
    if (isPermissionError(e)) return { binding: null, kind: 'permission', reason: firstLine(e) };
    return devFailure ?? { binding: null, kind: 'not-installed', reason: `${pre.pkg} is not installed (was it skipped with --omit=optional / --no-optional?)` };
  }
  try {
    let main = null;
    try {
      main = io.resolve(pre.pkg);
    } catch {
      // no main file: require names it
    }
    if (main) refuse(main);
    return { binding: io.require(pre.pkg), from: pre.pkg };
  } catch (e) {
    return { binding: null, kind: isPermissionError(e) ? 'permission' : 'load-error', reason: firstLine(e) };
  }
}

/** What the user can do about each kind of fallback (for `Collection.open`'s HV_UNSUPPORTED). */
export function remedy(kind, key) {
  switch (kind) {
    case 'forced':
      return 'Unset HOROSVEC_FORCE_WASM to use the native addon.';
    case 'not-installed':
      return `Install horosvec with its optional dependencies (npm install without --omit=optional; pnpm/yarn: this platform in supportedArchitectures), or add ${packageName(key)} explicitly.`;
    case 'old-glibc':
      return 'Use a Linux with glibc 2.28 or newer, an Alpine (musl) image, or build the addon from source (bash scripts/build-native.sh in a checkout of horosvec).';
    case 'permission':
      return 'Run Deno with --allow-ffi to load the native addon (openDatabase(dir) also needs --allow-read and --allow-write on its directory).';
    case 'load-error':
      return `Reinstall ${packageName(key)}, or build the addon from source (bash scripts/build-native.sh in a checkout of horosvec).`;
    default:
      return `Prebuilt addons exist for ${Object.keys(PLATFORMS).join(', ')}; elsewhere build one from source (bash scripts/build-native.sh in a checkout of horosvec writes npm/native/${binaryName(key)}).`;
  }
}

/** The HV_UNSUPPORTED message of `Collection.open` / `openDatabase(dir)` under the wasm fallback in Node. */
export function unsupportedMessage(what, fallback) {
  return `${what} needs the native addon, and this process runs the in-memory wasm build because ${fallback.reason}. ${remedy(fallback.kind, fallback.key)}`;
}

/** True for "1" and "true" (any case): the values of HOROSVEC_FORCE_WASM and HOROSVEC_DEBUG that count. */
export function isTruthy(value) {
  return typeof value === 'string' && (value === '1' || value.toLowerCase() === 'true');
}

/**
 * Whether a permission is granted without asking: Deno prompts on a terminal for any access not
 * granted (and throws NotCapable without one), so the optional probes (the environment, the
 * diagnostic report, ldd, the checkout build) ask Deno first and are skipped unless granted.
 * `deno` is Deno's namespace (undefined elsewhere: everything is allowed).
 */
export function granted(desc, deno = globalThis.Deno) {
  const perms = deno?.permissions;
  if (!perms || typeof perms.querySync !== 'function') return true;
  try {
    return perms.querySync(desc).state === 'granted';
  } catch {
    return false;
  }
}

/** An environment variable, or undefined when it is unset or may not be read (Deno without --allow-env). */
export function readEnv(name, proc = globalThis.process, allowed = granted) {
  try {
    if (!allowed({ name: 'env', variable: name })) return undefined;
    const v = proc?.env?.[name];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This process's host description. `libc` and `glibcVersion` come from the diagnostic report's
 * `glibcVersionRuntime` (and its shared objects for musl), else from /usr/bin/ldd via `readFile`;
 * on Linux an undetectable libc counts as glibc of unknown version. With `quick`, ldd is read
 * first and the report (~15 ms in Node) only when ldd cannot be: libc without glibc's version,
 * enough to pick the package (the loader asks for the version only to explain a failed load).
 * Each probe only if `allowed` (Deno's permissions). Never throws.
 */
export function hostInfo(proc = globalThis.process, readFile = undefined, allowed = granted, { quick = false } = {}) {
  const platform = proc?.platform;
  const arch = proc?.arch;
  if (platform !== 'linux') return { platform, arch, libc: null, glibcVersion: null };
  const ldd = () => {
    if (!readFile || !allowed({ name: 'read', path: '/usr/bin/ldd' })) return null;
    try {
      return readFile('/usr/bin/ldd').includes('musl') ? 'musl' : 'glibc';
    } catch {
      return null; // no ldd, or no permission to read it
    }
  };
  if (quick) {
    const libc = ldd();
    if (libc) return { platform, arch, libc, glibcVersion: null };
  }
  let report = null;
  try {
    const r = proc.report;
    // Deno's report reads system information (--allow-sys)
    if (r && typeof r.getReport === 'function' && allowed({ name: 'sys' })) {
      const before = r.excludeNetwork;
      try {
        r.excludeNetwork = true;
      } catch {
        // read-only in some runtimes
      }
      report = r.getReport();
      try {
        r.excludeNetwork = before;
      } catch {
        // as above
      }
    }
  } catch {
    report = null;
  }
  const runtime = report?.header?.glibcVersionRuntime;
  if (typeof runtime === 'string' && runtime !== '') return { platform, arch, libc: 'glibc', glibcVersion: runtime };
  const shared = Array.isArray(report?.sharedObjects) ? report.sharedObjects : [];
  if (shared.some((f) => typeof f === 'string' && (f.includes('libc.musl-') || f.includes('ld-musl-')))) {
    return { platform, arch, libc: 'musl', glibcVersion: null };
  }
  return { platform, arch, libc: (quick ? null : ldd()) ?? 'glibc', glibcVersion: null };
}

/**
 * A failed load explained by the host's glibc when it is below the package's floor (the
 * dlopen error would only name a missing GLIBC_2.xx symbol version); else `failure` unchanged.
 */
export function explainFailure(failure, host) {
  if (failure.kind !== 'load-error') return failure;
  const pre = prebuiltFor(host);
  return pre.kind === 'old-glibc' ? { binding: null, kind: pre.kind, reason: pre.reason } : failure;
}
