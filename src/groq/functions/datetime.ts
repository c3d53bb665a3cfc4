// dateTime:: functions. (The constructor dateTime() is global.)
import { nullary } from './define.ts';
import type { Namespace } from './types.ts';

export const dateTimeFunctions: Namespace = {
  now: { ...nullary('context', (scope) => scope.run.now), returnsNonJson: true },
};
