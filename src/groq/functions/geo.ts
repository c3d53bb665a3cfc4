// The geography extension: the global constructor geo() and the geo:: functions, wired to the
// geometry in ../geo (written separately). Arguments may be geo() values, raw GeoJSON objects or
// {lat, lng} objects; anything that is not a valid geometry makes the result null.
import { contains, distance, type Geometry, intersects, latLng, toGeometry } from '../geo/index.ts';
import { binary, unary } from './define.ts';
import type { Namespace } from './types.ts';

// The geometry module caches its preparation per geometry object. Converting the same input
// object (a constant polygon, a parameter) to a new geometry for every document would defeat
// that, so conversions are remembered per input object.
const converted = new WeakMap<object, Geometry | null>();

function geometry(value: unknown): Geometry | null {
  if (typeof value !== 'object' || value === null) return null;
  let result = converted.get(value);
  if (result === undefined) {
    result = toGeometry(value);
    converted.set(value, result);
  }
  return result;
}

function relation<T>(test: (a: Geometry, b: Geometry) => T): ReturnType<typeof binary> {
  return binary((a, b) => {
    const ga = geometry(a);
    const gb = geometry(b);
    return ga && gb ? test(ga, gb) : null;
  });
}

export const geoGlobalFunctions: Namespace = {
  geo: unary(geometry),
};

export const geoFunctions: Namespace = {
  latLng: binary((lat, lng) => (typeof lat === 'number' && typeof lng === 'number' ? latLng(lat, lng) : null)),
  contains: relation(contains),
  intersects: relation(intersects),
  distance: relation(distance),
};
