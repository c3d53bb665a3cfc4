// How much work an evaluation may do. The evaluator never decides that itself: the caller gives a
// budget, loops charge it the elements they walk, and the budget stops the evaluation by throwing
// (whatever error its owner chose; the evaluator catches nothing). A budget reads the clock once
// per many units, so a charge is an addition and a comparison.

export interface EvaluationBudget {
  /** Called before each synchronous run of a compiled query (a round, a page). */
  beginRun(): void;
  /** Charges `units` elements of work; throws to stop the evaluation. */
  charge(units: number): void;
  /**
   * Called before a function or operator puts together a string of `length` characters from
   * others (array::join of n items can write n times its separator): charges the writing, and
   * throws to refuse a string so long.
   */
  buildsText(length: number): void;
  /**
   * Called before a function works through `characters` characters of text in one step that
   * nothing interrupts (splitting, case mapping, matching): charges it, and may stop the run
   * first, where so long a step would hold up other work.
   */
  worksOnText(characters: number): void;
}

export const UNLIMITED: EvaluationBudget = Object.freeze({ beginRun() {}, charge() {}, buildsText() {}, worksOnText() {} });

/**
 * Characters of a string read as one unit of work: reading text costs far less per character than
 * walking an element, so long texts count and short ones add little.
 */
const CHARACTERS_PER_UNIT = 16;

/** The units of work of reading or writing `characters` characters of text. */
export function textUnits(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_UNIT);
}
