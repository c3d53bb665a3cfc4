// The bars the service is measured against, each checked where its benchmark measures it, beside
// the baseline of the same run. `npm run bench -- --check` exits with 1 when one is missed.

interface TargetOutcome {
  name: string;
  measured: string;
  bar: string;
  met: boolean;
}

const outcomes: TargetOutcome[] = [];

export type Bar = { atLeast: number } | { atMost: number };

/** Records and prints whether `measured` meets the bar (`unit` follows both numbers). */
export function checkTarget(name: string, measured: number, bar: Bar, unit = ''): void {
  const met = 'atLeast' in bar ? measured >= bar.atLeast : measured <= bar.atMost;
  const format = (n: number) => `${n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(2)}${unit}`;
  const outcome = { name, measured: format(measured), bar: 'atLeast' in bar ? `>= ${format(bar.atLeast)}` : `<= ${format(bar.atMost)}`, met };
  outcomes.push(outcome);
  console.log(`Target ${name}: ${outcome.measured} (${outcome.bar}) -> ${met ? 'met' : 'NOT met'}`);
}

/** Every target checked so far, and whether all were met. */
export function targetOutcomes(): { outcomes: readonly TargetOutcome[]; allMet: boolean } {
  return { outcomes, allMet: outcomes.every((outcome) => outcome.met) };
}
