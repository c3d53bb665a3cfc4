/**
 * geo::intersects and geo::contains on prepared shapes, in the plane, with
 * closed shapes: a boundary belongs to its shape, so touching counts as
 * intersecting and a point on a polygon's edge is contained by it.
 */
import { pathOnEdges, somePiece } from './coverage.ts';
import { interiorPoint, locate, type PolygonIndex } from './polygon-index.ts';
import type { Prepared } from './prepared.ts';
import { edgesTouch, onEdge, samePoint, sweepPairs, type Edge } from './segments.ts';
import type { Pt } from './types.ts';

function edgesMeet(a: readonly Edge[], b: readonly Edge[]): boolean {
  return sweepPairs(a, b, edgesTouch);
}

function pointOnEdges(p: Pt, edges: readonly Edge[]): boolean {
  return edges.some((e) => onEdge(p, e));
}

function inPolygon(p: Pt, polygon: PolygonIndex): boolean {
  return locate(p, polygon) !== 'outside';
}

/** A point of the polygon's shell, to test "one lies wholly inside the other" once edges do not meet. */
function anyVertex(polygon: PolygonIndex): Pt {
  return polygon.rings[0]?.[0]?.a ?? { x: NaN, y: NaN };
}

function pointHitsShape(p: Pt, s: Prepared): boolean {
  return (
    s.points.some((q) => samePoint(p, q)) ||
    pointOnEdges(p, s.lineEdges) ||
    s.polygons.some((polygon) => inPolygon(p, polygon))
  );
}

function lineHitsPolygon(line: readonly Edge[], polygon: PolygonIndex): boolean {
  const first = line[0];
  return edgesMeet(line, polygon.edges) || (first !== undefined && inPolygon(first.a, polygon));
}

function polygonsMeet(a: PolygonIndex, b: PolygonIndex): boolean {
  if (a.maxX < b.minX || b.maxX < a.minX || a.maxY < b.minY || b.maxY < a.minY) return false;
  return edgesMeet(a.edges, b.edges) || inPolygon(anyVertex(b), a) || inPolygon(anyVertex(a), b);
}

export function intersects(a: Prepared, b: Prepared): boolean {
  return (
    a.points.some((p) => pointHitsShape(p, b)) ||
    b.points.some((p) => pointHitsShape(p, a)) ||
    edgesMeet(a.lineEdges, b.lineEdges) ||
    a.lines.some((line) => b.polygons.some((polygon) => lineHitsPolygon(line, polygon))) ||
    b.lines.some((line) => a.polygons.some((polygon) => lineHitsPolygon(line, polygon))) ||
    a.polygons.some((pa) => b.polygons.some((pb) => polygonsMeet(pa, pb)))
  );
}

/** Every piece of the path is inside or on the polygon. */
function pathInPolygon(path: readonly Edge[], polygon: PolygonIndex): boolean {
  return !somePiece(path, polygon.edges, (piece) => !piece.onOther && !inPolygon(piece.mid, polygon));
}

/**
 * Polygon `inner` lies within polygon `outer` when (1) inner's boundary lies
 * within outer, (2) outer's boundary never passes through inner's interior
 * (which is how a hole of outer inside inner shows), and (3) one interior
 * point of inner is in outer, which settles the case where inner's whole
 * boundary lies on outer's boundary (inner being exactly one of outer's holes).
 */
function polygonInPolygon(inner: PolygonIndex, outer: PolygonIndex): boolean {
  if (inner.minX < outer.minX || inner.maxX > outer.maxX || inner.minY < outer.minY || inner.maxY > outer.maxY) {
    return false;
  }
  return (
    pathInPolygon(inner.edges, outer) &&
    !somePiece(outer.edges, inner.edges, (piece) => !piece.onOther && locate(piece.mid, inner) === 'inside') &&
    inPolygon(interiorPoint(inner), outer)
  );
}

/** Lines may be covered by a's lines together, or else by one of a's polygons. */
function lineCovered(line: readonly Edge[], a: Prepared): boolean {
  return pathOnEdges(line, a.lineEdges) || a.polygons.some((polygon) => pathInPolygon(line, polygon));
}

/**
 * Every part of b lies within a. As the spec puts it for MultiPolygon, one of
 * a's polygons must contain each polygon (or line) of b on its own; a part
 * covered only by two of a's polygons together does not count.
 */
export function contains(a: Prepared, b: Prepared): boolean {
  return (
    b.points.every((p) => pointHitsShape(p, a)) &&
    b.lines.every((line) => lineCovered(line, a)) &&
    b.polygons.every((inner) => a.polygons.some((outer) => polygonInPolygon(inner, outer)))
  );
}
