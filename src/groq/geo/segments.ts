/**
 * Planar segment primitives. Coordinates are (longitude, latitude) read as
 * plain x/y, which is what the GROQ spec asks of geo::contains/intersects
 * ("a planar (non-spherical) coordinate system").
 */
import type { Pt } from './types.ts';

export interface Edge {
  readonly a: Pt;
  readonly b: Pt;
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
}

/** Twice the signed area of triangle abc: > 0 when c is left of a->b, 0 when collinear. */
export function orient(a: Pt, b: Pt, c: Pt): number {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

export function samePoint(a: Pt, b: Pt): boolean {
  return a.x === b.x && a.y === b.y;
}

export function edge(a: Pt, b: Pt): Edge {
  return {
    a,
    b,
    minX: Math.min(a.x, b.x),
    maxX: Math.max(a.x, b.x),
    minY: Math.min(a.y, b.y),
    maxY: Math.max(a.y, b.y),
  };
}

/** Edges between consecutive points of a path (a closed ring yields its closing edge too). */
export function edgesOf(path: readonly Pt[]): Edge[] {
  const edges: Edge[] = [];
  let prev: Pt | undefined;
  for (const p of path) {
    if (prev) edges.push(edge(prev, p));
    prev = p;
  }
  return edges;
}

function inBox(p: Pt, e: Edge): boolean {
  return p.x >= e.minX && p.x <= e.maxX && p.y >= e.minY && p.y <= e.maxY;
}

/** p lies on the closed segment e. */
export function onEdge(p: Pt, e: Edge): boolean {
  return inBox(p, e) && orient(e.a, e.b, p) === 0;
}

/**
 * Which side of the other segment each endpoint lies on: d1, d2 for e's ends
 * against f, d3, d4 for f's ends against e. Null when the boxes are apart.
 */
interface Sides {
  readonly d1: number;
  readonly d2: number;
  readonly d3: number;
  readonly d4: number;
}

function sides(e: Edge, f: Edge): Sides | null {
  if (e.maxX < f.minX || f.maxX < e.minX || e.maxY < f.minY || f.maxY < e.minY) return null;
  return { d1: orient(f.a, f.b, e.a), d2: orient(f.a, f.b, e.b), d3: orient(e.a, e.b, f.a), d4: orient(e.a, e.b, f.b) };
}

function opposite(p: number, q: number): boolean {
  return (p > 0 && q < 0) || (p < 0 && q > 0);
}

/** The segments cross at a single point interior to both (no touching, no collinearity). */
export function properlyCross(e: Edge, f: Edge): boolean {
  const s = sides(e, f);
  return s !== null && opposite(s.d1, s.d2) && opposite(s.d3, s.d4);
}

/** The closed segments e and f share at least one point. */
export function edgesTouch(e: Edge, f: Edge): boolean {
  const s = sides(e, f);
  if (!s) return false;
  if (opposite(s.d1, s.d2) && opposite(s.d3, s.d4)) return true;
  return (
    (s.d1 === 0 && inBox(e.a, f)) ||
    (s.d2 === 0 && inBox(e.b, f)) ||
    (s.d3 === 0 && inBox(f.a, e)) ||
    (s.d4 === 0 && inBox(f.b, e))
  );
}

/** Position of p along e as a fraction of its length (p is assumed to be on the line of e). */
function paramOf(p: Pt, e: Edge): number {
  const dx = e.b.x - e.a.x;
  const dy = e.b.y - e.a.y;
  return ((p.x - e.a.x) * dx + (p.y - e.a.y) * dy) / (dx * dx + dy * dy);
}

/**
 * Where f meets e, as parameters along e. Every meeting point goes to `cuts`;
 * a collinear overlap also goes to `overlaps` as a [from, to] interval, so that
 * callers can tell "runs along the other boundary" without re-testing a
 * rounded midpoint for collinearity.
 */
export function meetParams(e: Edge, f: Edge, cuts: number[], overlaps: [number, number][]): void {
  const s = sides(e, f);
  if (!s) return;
  if (opposite(s.d1, s.d2) && opposite(s.d3, s.d4)) {
    cuts.push(s.d1 / (s.d1 - s.d2));
    return;
  }
  const met: number[] = [];
  if (s.d1 === 0 && inBox(e.a, f)) met.push(0);
  if (s.d2 === 0 && inBox(e.b, f)) met.push(1);
  if (s.d3 === 0 && inBox(f.a, e)) met.push(paramOf(f.a, e));
  if (s.d4 === 0 && inBox(f.b, e)) met.push(paramOf(f.b, e));
  cuts.push(...met);
  // Collinear: the overlap runs between the endpoints that lie on the other segment.
  if (s.d1 === 0 && s.d2 === 0 && s.d3 === 0 && s.d4 === 0 && met.length >= 2) {
    const from = Math.min(...met);
    const to = Math.max(...met);
    if (to > from) overlaps.push([from, to]);
  }
}

function byMinX(a: Edge, b: Edge): number {
  return a.minX - b.minX;
}

/**
 * Calls `visit` for every pair (e from `left`, f from `right`) whose bounding
 * boxes overlap; stops early when `visit` returns true, and returns whether it
 * did. A sweep over x keeps this near-linear for real-world shapes instead of
 * testing every pair.
 */
export function sweepPairs(
  left: readonly Edge[],
  right: readonly Edge[],
  visit: (e: Edge, f: Edge) => boolean | void,
): boolean {
  const ls = [...left].sort(byMinX);
  const rs = [...right].sort(byMinX);
  let activeL: Edge[] = [];
  let activeR: Edge[] = [];
  let i = 0;
  let j = 0;
  while (i < ls.length || j < rs.length) {
    const l = ls[i];
    const r = rs[j];
    if (l && (!r || l.minX <= r.minX)) {
      i++;
      activeR = activeR.filter((f) => f.maxX >= l.minX);
      for (const f of activeR) {
        if (f.maxY >= l.minY && l.maxY >= f.minY && visit(l, f) === true) return true;
      }
      activeL.push(l);
    } else if (r) {
      j++;
      activeL = activeL.filter((e) => e.maxX >= r.minX);
      for (const e of activeL) {
        if (e.maxY >= r.minY && r.maxY >= e.minY && visit(e, r) === true) return true;
      }
      activeR.push(r);
    }
  }
  return false;
}

/** Like sweepPairs over one set with itself, each unordered pair once (indices into `edges`). */
export function sweepSelfPairs(edges: readonly Edge[], visit: (i: number, j: number) => boolean | void): boolean {
  const order = edges.map((_, k) => k).sort((p, q) => byMinX(edges[p] as Edge, edges[q] as Edge));
  let active: number[] = [];
  for (const k of order) {
    const e = edges[k] as Edge;
    active = active.filter((m) => (edges[m] as Edge).maxX >= e.minX);
    for (const m of active) {
      const f = edges[m] as Edge;
      if (f.maxY >= e.minY && e.maxY >= f.minY && visit(Math.min(k, m), Math.max(k, m)) === true) return true;
    }
    active.push(k);
  }
  return false;
}
