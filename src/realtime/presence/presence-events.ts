import type { PresenceLocation } from './presence-params.ts';

/**
 * What happens to presence, as instances tell each other. `connectionId` names the WebSocket the
 * event came from (unique across instances): a session's state belongs to the connection that last
 * announced it, and only that connection's end or disconnect removes it (a reloaded tab announces
 * the same session id on a new connection before the old one is gone).
 */
interface EventBase {
  readonly projectId: string;
  readonly dataset: string;
  /** The user id, or `token:<id>` for an API token: set by the server, never by the client. */
  readonly userId: string;
  readonly sessionId: string;
  readonly connectionId: string;
}

export interface StateEvent extends EventBase {
  readonly type: 'state';
  readonly locations: readonly PresenceLocation[];
}

export interface RollCallEvent extends EventBase {
  readonly type: 'rollCall';
}

export interface DisconnectEvent extends EventBase {
  readonly type: 'disconnect';
}

export type PresenceEvent = StateEvent | RollCallEvent | DisconnectEvent;

/**
 * The event as Studio's bifur transport reads it (the `result` of a `presence_subscription`
 * message): `{type: 'state', i, m: {sessionId, locations}}`, `{type: 'rollCall', i, session}`,
 * `{type: 'disconnect', i, m: {session}}`. Studio throws on any other type.
 */
export function subscriptionResultJson(event: PresenceEvent): string {
  switch (event.type) {
    case 'state':
      return JSON.stringify({ type: 'state', i: event.userId, m: { sessionId: event.sessionId, locations: event.locations } });
    case 'rollCall':
      return JSON.stringify({ type: 'rollCall', i: event.userId, session: event.sessionId });
    case 'disconnect':
      return JSON.stringify({ type: 'disconnect', i: event.userId, m: { session: event.sessionId } });
  }
}
