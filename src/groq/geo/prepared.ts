/**
 * The form the predicates work on: points, line edges and indexed polygons,
 * computed once per geometry object. A query like
 * `*[geo::contains($zone, location)]` reuses one $zone for every document, so
 * the work on it is cached, keyed weakly by the geometry object.
 */
import { parseGeo, type Parsed } from './parse.ts';
import { indexPolygon, type PolygonIndex } from './polygon-index.ts';
import { edgesOf, samePoint, type Edge } from './segments.ts';
import type { Geometry, Pt } from './types.ts';

export interface Prepared {
  /** The normalized GeoJSON type ("Point" also for a {lat, lng} input). */
  readonly type: string;
  readonly points: readonly Pt[];
  /** Edges per line; zero-length edges (repeated positions) are dropped. */
  readonly lines: readonly (readonly Edge[])[];
  readonly lineEdges: readonly Edge[];
  readonly polygons: readonly PolygonIndex[];
}

const cache = new WeakMap<object, Prepared | null>();

function prepareParsed({ geometry, shape }: Parsed): Prepared {
  const lines = shape.lines.map((line) => edgesOf(line).filter((e) => !samePoint(e.a, e.b)));
  return {
    type: geometry.type,
    points: shape.points,
    lines,
    lineEdges: lines.flat(),
    polygons: shape.polygons.map(indexPolygon),
  };
}

/** Called by toGeometry so that a value it returns is never parsed twice. */
export function remember(parsed: Parsed): Geometry {
  cache.set(parsed.geometry, prepareParsed(parsed));
  return parsed.geometry;
}

/** The prepared form of a geometry, or null if it is not a valid geo value. */
export function prepare(geometry: Geometry): Prepared | null {
  const hit = cache.get(geometry);
  if (hit !== undefined) return hit;
  const parsed = parseGeo(geometry);
  const prepared = parsed && prepareParsed(parsed);
  cache.set(geometry, prepared);
  return prepared;
}
