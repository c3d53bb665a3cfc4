/**
 * Polygon validity. The conformance suite expects geo() to return null for a
 * ring that is not closed, repeats a vertex back to back, or crosses itself,
 * so those are checked here; the rest (holes, multipolygon parts) gets the
 * cheap checks that keep the predicates meaningful.
 */
import {
  edgesOf,
  edgesTouch,
  meetParams,
  orient,
  properlyCross,
  samePoint,
  sweepPairs,
  sweepSelfPairs,
  type Edge,
} from './segments.ts';
import { indexPolygon, locate } from './polygon-index.ts';
import type { Polygon, Ring } from './types.ts';

export function isValidRing(ring: Ring): boolean {
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (ring.length < 4 || !first || !last || !samePoint(first, last)) return false;
  for (let k = 1; k < ring.length; k++) {
    if (samePoint(ring[k - 1] as Ring[number], ring[k] as Ring[number])) return false;
  }
  const edges = edgesOf(ring);
  const n = edges.length;
  const crossed = sweepSelfPairs(edges, (i, j) => {
    const e = edges[i] as Edge;
    const f = edges[j] as Edge;
    if (j === i + 1) return foldsBack(e, f);
    if (i === 0 && j === n - 1) return foldsBack(f, e);
    return edgesTouch(e, f);
  });
  return !crossed;
}

/** Consecutive edges e then f share e.b; they are invalid only if f runs back along e. */
function foldsBack(e: Edge, f: Edge): boolean {
  if (orient(e.a, e.b, f.b) !== 0) return false;
  const dot = (e.b.x - e.a.x) * (f.b.x - f.a.x) + (e.b.y - e.a.y) * (f.b.y - f.a.y);
  return dot < 0;
}

/** Two rings of one polygon may touch at points but must not cross or share a stretch of edge. */
function ringsCross(a: readonly Edge[], b: readonly Edge[]): boolean {
  return sweepPairs(a, b, (e, f) => {
    if (properlyCross(e, f)) return true;
    const overlaps: [number, number][] = [];
    meetParams(e, f, [], overlaps);
    return overlaps.length > 0;
  });
}

export function isValidPolygon(polygon: Polygon): boolean {
  if (polygon.length === 0 || !polygon.every(isValidRing)) return false;
  const rings = polygon.map(edgesOf);
  for (let i = 0; i < rings.length; i++) {
    for (let j = i + 1; j < rings.length; j++) {
      if (ringsCross(rings[i] as Edge[], rings[j] as Edge[])) return false;
    }
  }
  // With no crossings, a hole is inside the shell iff any of its vertices is.
  const shell = indexPolygon(polygon.slice(0, 1));
  return polygon.slice(1).every((hole) => hole.some((p) => locate(p, shell) === 'inside'));
}
