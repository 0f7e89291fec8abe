// The vectors of tests-js/follow.test.ts's records: a deterministic function of the id, so the
// writer and the readers agree without sending vectors around.
export function vectorOf(id) {
  return Array.from({ length: 8 }, (_, d) => ((id * 31 + d * 17) % 101) / 101);
}
