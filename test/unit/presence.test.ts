import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import type { InstanceBroadcast } from '../../src/store/instance-broadcast.ts';
import { PresenceBus } from '../../src/realtime/presence/presence-bus.ts';
import type { PresenceEvent, StateEvent } from '../../src/realtime/presence/presence-events.ts';
import { PresenceHub } from '../../src/realtime/presence/presence-hub.ts';
import { MessageBudget } from '../../src/realtime/presence/message-budget.ts';
import { announcement } from '../../src/realtime/presence/presence-params.ts';
import { DEFAULT_PRESENCE_SETTINGS } from '../../src/realtime/presence/presence-service.ts';

/** Every bus on it hears every message, as instances on one database do. */
class FakeBroadcast implements InstanceBroadcast {
  readonly maxMessageBytes = 2_000;
  readonly sent: string[] = [];
  private readonly receivers = new Set<(message: string) => void>();
  publish(message: string): void {
    this.sent.push(message);
    for (const receive of this.receivers) receive(message);
  }
  subscribe(receive: (message: string) => void): () => void {
    this.receivers.add(receive);
    return () => this.receivers.delete(receive);
  }
  async start(): Promise<void> {}
  async close(): Promise<void> {}
}

const log = createLogger('silent');
const base = { projectId: 'p1', dataset: 'production', userId: 'u1', connectionId: 'a:1' };
const state = (sessionId: string, extra: Partial<StateEvent> = {}): StateEvent => ({
  type: 'state',
  ...base,
  sessionId,
  locations: [{ type: 'document', documentId: 'post-1', path: ['title'], lastActiveAt: '2026-01-01T00:00:00.000Z' }],
  ...extra,
});

describe('presence bus', () => {
  it('packs events into messages the broadcast can carry, in order, and ignores its own and malformed messages', () => {
    const broadcast = new FakeBroadcast();
    const one = new PresenceBus(broadcast, 'one', log);
    const two = new PresenceBus(broadcast, 'two', log);
    const heardByOne: PresenceEvent[] = [];
    const heardByTwo: PresenceEvent[] = [];
    one.subscribe((event) => heardByOne.push(event));
    two.subscribe((event) => heardByTwo.push(event));
    const events = Array.from({ length: 40 }, (_, index) => state(`session-${index}`));
    for (const event of events) one.publish(event);
    one.flush();
    expect(broadcast.sent.length).toBeGreaterThan(1);
    for (const message of broadcast.sent) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(broadcast.maxMessageBytes);
    expect(heardByTwo).toEqual(events);
    expect(heardByOne).toEqual([]);

    broadcast.publish('not json');
    broadcast.publish(JSON.stringify({ v: 1, from: 'x', events: [{ type: 'state', projectId: 'p1' }] }));
    broadcast.publish(JSON.stringify({ v: 2, from: 'x', events: [] }));
    expect(heardByTwo).toHaveLength(40);
  });
});

describe('presence hub', () => {
  it('keeps a session with the connection that last announced it, refuses another user its id, and expires silent ones', () => {
    let now = 1_000;
    const hub = new PresenceHub({ maxStates: 2 }, () => now);
    const delivered: string[] = [];
    const { current, unsubscribe } = hub.subscribe('p1', 'production', { connectionId: 'watcher', deliver: (json) => delivered.push(json) });
    expect(current).toEqual([]);

    expect(hub.apply(state('s1'), 'local')).toBe(true);
    expect(hub.apply(state('s1', { userId: 'u2', connectionId: 'b:1' }), 'local')).toBe('session-taken');
    // The same user on a new connection (a reloaded tab) takes the session over...
    expect(hub.apply(state('s1', { connectionId: 'b:2' }), 'remote')).toBe(true);
    // ...so the old connection's end leaves it.
    expect(hub.apply({ type: 'disconnect', ...base, sessionId: 's1' }, 'remote')).toBe(false);
    expect(hub.stateCount).toBe(1);

    expect(hub.apply(state('s2'), 'local')).toBe(true);
    expect(hub.apply(state('s3'), 'local')).toBe('full');
    expect(hub.apply(state('s2', { locations: [] }), 'local')).toBe(true);

    now += 10_000;
    expect(hub.apply(state('s2'), 'local')).toBe(true);
    expect(hub.expire(now - 5_000)).toBe(1);
    expect(hub.stateCount).toBe(1);
    expect(JSON.parse(delivered.at(-1)!)).toEqual({ type: 'disconnect', i: 'u1', m: { session: 's1' } });
    // The watcher hears everything but its own connection's.
    expect(delivered.map((json) => (JSON.parse(json) as { type: string }).type)).toEqual(['state', 'state', 'state', 'state', 'state', 'disconnect']);
    unsubscribe();
  });
});

describe('presence params', () => {
  it('passes on only what Studio reads, and refuses what would break other editors', () => {
    const selection = { anchor: { path: [{ _key: 'a' }, 'children', { _key: 'b' }], offset: 1 }, focus: { path: [{ _key: 'a' }, [0, ''], 2], offset: 4 }, backward: true };
    const given = { type: 'document', documentId: 'drafts.post-1', path: ['body', { _key: 'a' }], lastActiveAt: 'now', selection, unknown: 'dropped' };
    expect(announcement({ data: { sessionId: 'abc', locations: [given] } }, DEFAULT_PRESENCE_SETTINGS)).toEqual({
      sessionId: 'abc',
      locations: [{ type: 'document', documentId: 'drafts.post-1', path: ['body', { _key: 'a' }], lastActiveAt: 'now', selection }],
    });
    for (const locations of [[1], [{ documentId: 5 }], [{ documentId: 'x', path: 'title' }], [{ documentId: 'x', path: [{ _key: 'a', extra: 1 }] }], [{ documentId: 'x', selection: { anchor: {} } }]]) {
      expect(() => announcement({ data: { sessionId: 'abc', locations } }, DEFAULT_PRESENCE_SETTINGS), JSON.stringify(locations)).toThrow(/Invalid params/);
    }
  });

  it('budgets messages: a burst, then the rate', () => {
    let now = 0;
    const budget = new MessageBudget({ messagesPerSecond: 2, messageBurst: 3 }, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    now += 500;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
  });
});
