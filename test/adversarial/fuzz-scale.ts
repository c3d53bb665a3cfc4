/**
 * The run count of a generated test: as CI runs it, times FUZZ_SCALE when set (to hunt longer
 * locally: `FUZZ_SCALE=20 npx vitest run test/adversarial`).
 */
export function scaledRuns(ciRuns: number): number {
  const scale = Number(process.env.FUZZ_SCALE ?? 1);
  return Math.max(1, Math.round(ciRuns * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}
