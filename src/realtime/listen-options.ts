/** What a listener wants in its mutation events beside the ids and the transition. */
export interface ListenOptions {
  /** `result`: the document after the change (absent when it was deleted). */
  readonly includeResult: boolean;
  /** `previous`: the document before the change, or null if it did not exist. */
  readonly includePreviousRevision: boolean;
  /** `mutations`: the change as one mutation (`createOrReplace` of the result, or `delete`). */
  readonly includeMutations: boolean;
}

/** Server-Sent Events follow Sanity's listen API, whose mutations are included unless turned off. */
export const SSE_DEFAULTS: ListenOptions = { includeResult: false, includePreviousRevision: false, includeMutations: true };

/** WebSocket events carry what the subscription asks for and nothing more by default. */
export const WEBSOCKET_DEFAULTS: ListenOptions = { includeResult: false, includePreviousRevision: false, includeMutations: false };

export function listenOptions(given: Partial<Record<keyof ListenOptions, boolean | undefined>>, defaults: ListenOptions): ListenOptions {
  return {
    includeResult: given.includeResult ?? defaults.includeResult,
    includePreviousRevision: given.includePreviousRevision ?? defaults.includePreviousRevision,
    includeMutations: given.includeMutations ?? defaults.includeMutations,
  };
}

/** Listeners with equal keys get the same event text, serialized once per change. */
export function optionsKey(options: ListenOptions): string {
  return `${Number(options.includeResult)}${Number(options.includePreviousRevision)}${Number(options.includeMutations)}`;
}
