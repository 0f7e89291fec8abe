// Prints a plain closing line "<label>: N passed, N failed" from a vitest JSON report, and exits
// 1 on any failure or when no test ran (CI reads the line; vitest's own summary is not parsed).
import { readFileSync } from 'node:fs';

const [file, label] = process.argv.slice(2);
let r;
try {
  r = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
  console.log(`${label}: 0 passed, 1 failed`);
  console.error(`vitest-summary: cannot read ${file}: ${e.message}`);
  process.exit(1);
}
const passed = r.numPassedTests ?? 0;
const failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
