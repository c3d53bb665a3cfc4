/** What a listener wants in its mutation events beside the ids and the transition. */
export interface ListenOptions {
  /** `result`: the document after the change (absent when it was deleted). */
  readonly includeResult: boolean;
  /** `previous`: the document before the change, or null if it did not exist. */
  readonly includePreviousRevision: boolean;
  /** `mutations`: the mutations the transaction applied to the document. */
  readonly includeMutations: boolean;
  /** `effects`: the change as mendoza patches `{apply, revert}` (Sanity's `effectFormat=mendoza`). */
  readonly effects: boolean;
}

/** The listen options as a request gives them; `effectFormat` is Sanity's name for asking for effects. */
export type GivenListenOptions = Partial<Record<Exclude<keyof ListenOptions, 'effects'>, boolean | undefined>> & {
  effectFormat?: string | undefined;
};

/** Server-Sent Events follow Sanity's listen API, whose mutations are included unless turned off. */
export const SSE_DEFAULTS: ListenOptions = { includeResult: false, includePreviousRevision: false, includeMutations: true, effects: false };

/** WebSocket events carry what the subscription asks for and nothing more by default. */
export const WEBSOCKET_DEFAULTS: ListenOptions = { includeResult: false, includePreviousRevision: false, includeMutations: false, effects: false };

/** The one effect format there is (Sanity's too); requests are validated against it before this. */
export const EFFECT_FORMATS = ['mendoza'] as const;

export function listenOptions(given: GivenListenOptions, defaults: ListenOptions): ListenOptions {
  return {
    includeResult: given.includeResult ?? defaults.includeResult,
    includePreviousRevision: given.includePreviousRevision ?? defaults.includePreviousRevision,
    includeMutations: given.includeMutations ?? defaults.includeMutations,
    effects: given.effectFormat === undefined ? defaults.effects : given.effectFormat === 'mendoza',
  };
}

/** Listeners with equal keys get the same event text, serialized once per change. */
export function optionsKey(options: ListenOptions): string {
  return `${Number(options.includeResult)}${Number(options.includePreviousRevision)}${Number(options.includeMutations)}${Number(options.effects)}`;
}
