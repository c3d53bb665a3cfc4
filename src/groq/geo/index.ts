/**
 * The geometry behind GROQ's geo extension (spec: "Geography Extension"),
 * as pure functions the evaluator calls. See README.md for the semantics and
 * the evidence for them.
 */
import { haversineMeters } from './distance.ts';
import { parseGeo, parseLatLng } from './parse.ts';
import { prepare, remember } from './prepared.ts';
import * as relate from './relate.ts';
import type { Geometry } from './types.ts';

export type { Geometry } from './types.ts';

/** geo(v): a normalized GeoJSON geometry for a GeoJSON object or a {lat, lng} point; otherwise null. */
export function toGeometry(value: unknown): Geometry | null {
  const parsed = parseGeo(value);
  return parsed && remember(parsed);
}

/** geo::latLng(lat, lng): a GeoJSON Point, or null unless both are numbers within range. */
export function latLng(lat: number, lng: number): Geometry | null {
  const parsed = parseLatLng(lat, lng);
  return parsed && remember(parsed);
}

/** geo::contains(a, b): every point of b lies in a (boundaries included). False if either is not a valid geometry. */
export function contains(a: Geometry, b: Geometry): boolean {
  const pa = prepare(a);
  const pb = prepare(b);
  return pa !== null && pb !== null && relate.contains(pa, pb);
}

/** geo::intersects(a, b): a and b share at least one point. False if either is not a valid geometry. */
export function intersects(a: Geometry, b: Geometry): boolean {
  const pa = prepare(a);
  const pb = prepare(b);
  return pa !== null && pb !== null && relate.intersects(pa, pb);
}

/** geo::distance(a, b) in metres; null unless both are single points (the spec defines it for points only). */
export function distance(a: Geometry, b: Geometry): number | null {
  const pa = prepare(a);
  const pb = prepare(b);
  const p = pa?.type === 'Point' ? pa.points[0] : undefined;
  const q = pb?.type === 'Point' ? pb.points[0] : undefined;
  if (!p || !q) return null;
  return haversineMeters(p.y, p.x, q.y, q.x);
}
