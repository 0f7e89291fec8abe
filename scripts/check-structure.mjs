#!/usr/bin/env node
// The structure rules of core/src that `npm test` enforces (issue 13, ARCHITECTURE.md):
//   1. no module cycle: the graph whose nodes are the source files (a `mod.rs` is its folder's
//      module) and whose edges are `use crate::…` / `crate::…` / `super::…` paths has no cycle.
//      A module declaring or re-exporting its own children (`mod x; pub use x::Y;`) is not an
//      edge, so the parent-facade pattern is allowed; test code (`tests.rs`, and everything
//      after a `#[cfg(test)]` line) is not counted;
//   2. no file above MAX_LINES lines, except the SIMD kernel files (KERNELS).
// Prints each violation and exits 1; `--list` also prints the module graph.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, basename } from 'node:path';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', 'core', 'src');
const MAX_LINES = 400;
/** Kernel files: one function per instruction set, long by nature (ARCHITECTURE.md, distance/). */
const KERNELS = new Set([
  'distance/x86.rs',
  'distance/aarch64.rs',
  'distance/wasm_simd.rs',
  'distance/scalar.rs',
  'quant/kernels/x86.rs',
  'quant/kernels/wasm.rs',
  'quant/kernels/mod.rs',
]);

/** Every `.rs` file under `dir`, as paths relative to ROOT. */
function files(dir = ROOT) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return name.endsWith('.rs') ? [relative(ROOT, p)] : [];
  });
}

/** The module path of a file: `graph/mod.rs` → `graph`, `graph/build.rs` → `graph::build`, `lib.rs` → ``. */
function modulePath(file) {
  const parts = file.replace(/\.rs$/, '').split('/');
  if (parts.at(-1) === 'mod' || parts.at(-1) === 'lib') parts.pop();
  return parts.join('::');
}

const all = files().sort();
const modules = new Map(all.map((f) => [modulePath(f), f]));
const isTest = (f) => basename(f) === 'tests.rs' || f.split('/').includes('tests');

/** The deepest module that `path` (a `::` path from the crate root) names. */
function resolve(path) {
  const parts = path.split('::');
  while (parts.length) {
    const m = parts.join('::');
    if (modules.has(m)) return m;
    parts.pop();
  }
  return '';
}

/** `a` is `b` or one of its descendants. */
const within = (a, b) => a === b || b === '' || a.startsWith(`${b}::`);

const edges = new Map();
const problems = [];
for (const file of all) {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  if (lines.length > MAX_LINES && !KERNELS.has(file)) {
    problems.push(`${file}: ${lines.length} lines (limit ${MAX_LINES}; split it by responsibility)`);
  }
  if (isTest(file)) continue;
  const cut = lines.findIndex((l) => l.trim().startsWith('#[cfg(test)]'));
  const code = (cut < 0 ? lines : lines.slice(0, cut))
    .map((l) => l.replace(/\/\/.*$/, ''))
    .join('\n');
  const self = modulePath(file);
  const targets = new Set();
  // `crate::a::b`, including inside `use crate::{a::b, c}` groups.
  for (const m of code.matchAll(/\bcrate::(\{[^}]*\}|[A-Za-z_][\w:]*)/g)) {
    const body = m[1];
    const paths = body.startsWith('{') ? body.slice(1, -1).split(',') : [body];
    for (const p of paths) {
      const t = resolve(p.trim().replace(/::\{.*$/, '').replace(/::\*$/, ''));
      if (t !== self) targets.add(t);
    }
  }
  // `super::x`: relative to the file's parent module.
  const parent = self.split('::').slice(0, -1).join('::');
  for (const m of code.matchAll(/\bsuper::([A-Za-z_][\w:]*)/g)) {
    const t = resolve(parent ? `${parent}::${m[1]}` : m[1]);
    if (t !== self) targets.add(t);
  }
  // A module's own children are its declaration, not a dependency.
  edges.set(self, [...targets].filter((t) => !within(t, self) || t === ''));
}

// Cycles: depth-first search with colours; report each back edge's cycle once.
const colour = new Map();
const stack = [];
const seen = new Set();
function visit(m) {
  colour.set(m, 1);
  stack.push(m);
  for (const t of edges.get(m) ?? []) {
    if (!edges.has(t)) continue;
    if (colour.get(t) === 1) {
      const cycle = stack.slice(stack.indexOf(t)).concat(t);
      const key = [...cycle.slice(0, -1)].sort().join(' ');
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(`module cycle: ${cycle.map((x) => x || 'crate').join(' → ')}`);
      }
    } else if (!colour.get(t)) visit(t);
  }
  stack.pop();
  colour.set(m, 2);
}
for (const m of edges.keys()) if (!colour.get(m)) visit(m);

if (process.argv.includes('--list')) {
  for (const [m, ts] of edges) console.log(`${m || 'crate'} → ${ts.map((t) => t || 'crate').join(', ')}`);
}
for (const p of problems) console.log(`check-structure: ${p}`);
console.log(`check-structure: ${all.length} files, ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
