/**
 * A polygon with its edges computed once, and the two questions asked of it:
 * where is a point (inside, on the boundary, outside), and which point is
 * surely inside.
 */
import { edgesOf, onEdge, orient, type Edge } from './segments.ts';
import type { Polygon, Pt } from './types.ts';

export type Place = 'inside' | 'boundary' | 'outside';

export interface PolygonIndex {
  readonly polygon: Polygon;
  /** Edges per ring, shell first. */
  readonly rings: readonly (readonly Edge[])[];
  readonly edges: readonly Edge[];
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
}

export function indexPolygon(polygon: Polygon): PolygonIndex {
  const rings = polygon.map((ring) => edgesOf(ring));
  // A loop, not Math.min(...xs): spreading a very long ring can overflow the call stack.
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of polygon[0] ?? []) {
    minX = Math.min(minX, p.x);
    maxX = Math.max(maxX, p.x);
    minY = Math.min(minY, p.y);
    maxY = Math.max(maxY, p.y);
  }
  return { polygon, rings, edges: rings.flat(), minX, maxX, minY, maxY };
}

/** Even-odd ray cast towards +x; the caller has already ruled out p lying on the ring. */
function insideRing(p: Pt, edges: readonly Edge[]): boolean {
  let inside = false;
  for (const e of edges) {
    const { a, b } = e;
    if (a.y > p.y !== b.y > p.y) {
      // Sign test instead of computing the crossing x, so it agrees exactly with onEdge.
      const side = orient(a, b, p);
      if (b.y > a.y ? side > 0 : side < 0) inside = !inside;
    }
  }
  return inside;
}

export function locate(p: Pt, index: PolygonIndex): Place {
  if (p.x < index.minX || p.x > index.maxX || p.y < index.minY || p.y > index.maxY) return 'outside';
  for (const e of index.edges) if (onEdge(p, e)) return 'boundary';
  const [shell, ...holes] = index.rings;
  if (!shell || !insideRing(p, shell)) return 'outside';
  for (const hole of holes) if (insideRing(p, hole)) return 'outside';
  return 'inside';
}

/**
 * A point strictly inside the polygon: cut it with a horizontal line that
 * passes through no vertex and take the middle of the widest inside stretch.
 * Needed where every boundary test is inconclusive (one shape's boundary lies
 * entirely on the other's).
 */
export function interiorPoint(index: PolygonIndex): Pt {
  const ys = [...new Set(index.polygon.flat().map((p) => p.y))].sort((a, b) => a - b);
  const mid = (index.minY + index.maxY) / 2;
  let y = mid;
  let best = Infinity;
  for (let k = 0; k + 1 < ys.length; k++) {
    const candidate = ((ys[k] as number) + (ys[k + 1] as number)) / 2;
    if (Math.abs(candidate - mid) < best) {
      best = Math.abs(candidate - mid);
      y = candidate;
    }
  }
  const xs: number[] = [];
  for (const { a, b } of index.edges) {
    if (a.y > y !== b.y > y) xs.push(a.x + ((y - a.y) / (b.y - a.y)) * (b.x - a.x));
  }
  xs.sort((p, q) => p - q);
  let x = (index.minX + index.maxX) / 2;
  let widest = -1;
  for (let k = 0; k + 1 < xs.length; k += 2) {
    const from = xs[k] as number;
    const to = xs[k + 1] as number;
    if (to - from > widest) {
      widest = to - from;
      x = (from + to) / 2;
    }
  }
  return { x, y };
}
