// The median of the side benchmarks' repeated measurements (page-open, page-trace, single-writes,
// build-scaling): the middle value, or the mean of the two middle ones for an even count.

/** The median of the numbers `xs` (not modified). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
