/**
 * Turning a GROQ value into a geo value: a GeoJSON geometry object, or a
 * {lat, lng} point (Sanity's geopoint, which may carry _type, _key, alt).
 * The result is a fresh, normalized GeoJSON geometry (unknown keys dropped),
 * plus the flattened Shape the predicates use.
 */
import { isValidPolygon } from './validate.ts';
import { samePoint } from './segments.ts';
import type { Geometry, Polygon, Pt, Ring, Shape } from './types.ts';

export interface Parsed {
  readonly geometry: Geometry;
  readonly shape: Shape;
}

const GEOMETRY_TYPES = new Set([
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'Polygon',
  'MultiPolygon',
  'GeometryCollection',
]);

function parsed(geometry: Geometry, shape: Partial<Shape>): Parsed {
  return { geometry, shape: { points: [], lines: [], polygons: [], ...shape } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCoordinate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Longitude/latitude outside the globe are rejected rather than wrapped: they are data errors. */
function inRange(lng: number, lat: number): boolean {
  return lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90;
}

export function parseLatLng(lat: unknown, lng: unknown): Parsed | null {
  if (!isCoordinate(lat) || !isCoordinate(lng) || !inRange(lng, lat)) return null;
  return parsed({ type: 'Point', coordinates: [lng, lat] }, { points: [{ x: lng, y: lat }] });
}

/** The spec's geo point: `lat` plus exactly one of `lng` / `lon`; other keys are ignored. */
function parseGeoPoint(value: Record<string, unknown>): Parsed | null {
  const hasLng = 'lng' in value;
  const hasLon = 'lon' in value;
  if (!('lat' in value) || hasLng === hasLon) return null;
  return parseLatLng(value.lat, hasLng ? value.lng : value.lon);
}

/** A GeoJSON position: [lng, lat] or [lng, lat, altitude]. Returns the cleaned copy and the point. */
function parsePosition(value: unknown): { out: number[]; pt: Pt } | null {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3 || !value.every(isCoordinate)) return null;
  const [lng, lat] = value as number[];
  if (lng === undefined || lat === undefined || !inRange(lng, lat)) return null;
  return { out: [...(value as number[])], pt: { x: lng, y: lat } };
}

function parseList<T>(value: unknown, item: (v: unknown) => T | null, min = 1): T[] | null {
  if (!Array.isArray(value) || value.length < min) return null;
  const out: T[] = [];
  for (const v of value) {
    const result = item(v);
    if (result === null) return null;
    out.push(result);
  }
  return out;
}

interface Path {
  out: number[][];
  pts: Pt[];
}

function parsePath(value: unknown, min: number): Path | null {
  const positions = parseList(value, parsePosition, min);
  if (!positions) return null;
  return { out: positions.map((p) => p.out), pts: positions.map((p) => p.pt) };
}

/** A line needs two distinct positions; repeated consecutive positions are harmless and kept. */
function parseLine(value: unknown): Path | null {
  const path = parsePath(value, 2);
  const first = path?.pts[0];
  if (!path || !first || path.pts.every((p) => samePoint(p, first))) return null;
  return path;
}

function parsePolygon(value: unknown): { out: number[][][]; polygon: Polygon } | null {
  const rings = parseList(value, (ring) => parsePath(ring, 4));
  if (!rings) return null;
  const polygon: Ring[] = rings.map((r) => r.pts);
  if (!isValidPolygon(polygon)) return null;
  return { out: rings.map((r) => r.out), polygon };
}

function parseGeoJson(value: Record<string, unknown>): Parsed | null {
  const { type, coordinates } = value;
  switch (type) {
    case 'Point': {
      const p = parsePosition(coordinates);
      return p && parsed({ type, coordinates: p.out }, { points: [p.pt] });
    }
    case 'MultiPoint': {
      const ps = parseList(coordinates, parsePosition);
      return ps && parsed({ type, coordinates: ps.map((p) => p.out) }, { points: ps.map((p) => p.pt) });
    }
    case 'LineString': {
      const line = parseLine(coordinates);
      return line && parsed({ type, coordinates: line.out }, { lines: [line.pts] });
    }
    case 'MultiLineString': {
      const lines = parseList(coordinates, parseLine);
      return lines && parsed({ type, coordinates: lines.map((l) => l.out) }, { lines: lines.map((l) => l.pts) });
    }
    case 'Polygon': {
      const poly = parsePolygon(coordinates);
      return poly && parsed({ type, coordinates: poly.out }, { polygons: [poly.polygon] });
    }
    case 'MultiPolygon': {
      const polys = parseList(coordinates, parsePolygon);
      return polys && parsed({ type, coordinates: polys.map((p) => p.out) }, { polygons: polys.map((p) => p.polygon) });
    }
    case 'GeometryCollection': {
      // Members must be GeoJSON geometries themselves, not {lat, lng} points.
      const members = parseList(value.geometries, (g) => (isRecord(g) ? parseGeoJson(g) : null));
      if (!members) return null;
      return parsed(
        { type, geometries: members.map((m) => m.geometry) },
        {
          points: members.flatMap((m) => m.shape.points),
          lines: members.flatMap((m) => m.shape.lines),
          polygons: members.flatMap((m) => m.shape.polygons),
        },
      );
    }
    default:
      return null;
  }
}

/**
 * A value with a GeoJSON geometry `type` is read as GeoJSON (and must be valid
 * as such); any other object is tried as a lat/lng point. Feature and
 * FeatureCollection are not geometries and yield null, as the spec says.
 */
export function parseGeo(value: unknown): Parsed | null {
  if (!isRecord(value)) return null;
  if (typeof value.type === 'string' && GEOMETRY_TYPES.has(value.type)) return parseGeoJson(value);
  return parseGeoPoint(value);
}
