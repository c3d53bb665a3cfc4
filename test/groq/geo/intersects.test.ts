import { describe, expect, it } from 'vitest';
import { intersects, type Geometry } from '../../../src/groq/geo/index.ts';
import { collection, line, multiLine, multiPoint, multiPolygon, point, polygon, rect } from './helpers.ts';

/** intersects is symmetric; every case checks both argument orders. */
function both(a: Geometry, b: Geometry): boolean {
  const ab = intersects(a, b);
  expect(intersects(b, a)).toBe(ab);
  return ab;
}

const square = polygon(rect(0, 0, 4, 4));
const donut = polygon(rect(0, 0, 10, 10), rect(3, 3, 7, 7));

describe('intersects: points', () => {
  it('point and point meet only when equal', () => {
    expect(both(point(1, 2), point(1, 2))).toBe(true);
    expect(both(point(1, 2), point(1, 2.000001))).toBe(false);
  });

  it('ignores altitude when comparing positions', () => {
    expect(both(point(1, 2), { type: 'Point', coordinates: [1, 2, 500] })).toBe(true);
  });

  it('point and line: on a vertex, inside a segment, off the line', () => {
    const l = line([0, 0], [2, 2], [4, 0]);
    expect(both(point(0, 0), l)).toBe(true);
    expect(both(point(1, 1), l)).toBe(true);
    expect(both(point(3, 1), l)).toBe(true);
    expect(both(point(1, 0), l)).toBe(false);
  });

  it('point and polygon: interior, edge, vertex, outside', () => {
    expect(both(point(2, 2), square)).toBe(true);
    expect(both(point(4, 2), square)).toBe(true);
    expect(both(point(4, 4), square)).toBe(true);
    expect(both(point(5, 2), square)).toBe(false);
  });

  it('a point in a hole does not meet the polygon; one on the hole edge does', () => {
    expect(both(point(5, 5), donut)).toBe(false);
    expect(both(point(3, 5), donut)).toBe(true);
    expect(both(point(2, 5), donut)).toBe(true);
  });

  it('a MultiPoint meets when any of its points does', () => {
    expect(both(multiPoint([9, 9], [2, 2]), square)).toBe(true);
    expect(both(multiPoint([9, 9], [8, 8]), square)).toBe(false);
  });
});

describe('intersects: lines', () => {
  it('crossing, touching at an end, and collinear overlap all meet', () => {
    expect(both(line([0, 0], [4, 4]), line([0, 4], [4, 0]))).toBe(true);
    expect(both(line([0, 0], [2, 2]), line([2, 2], [5, 0]))).toBe(true);
    expect(both(line([0, 0], [4, 0]), line([2, 0], [6, 0]))).toBe(true);
    expect(both(line([0, 0], [4, 0]), line([2, 0], [2, 3]))).toBe(true);
  });

  it('parallel and collinear-but-apart lines do not meet', () => {
    expect(both(line([0, 0], [4, 0]), line([0, 1], [4, 1]))).toBe(false);
    expect(both(line([0, 0], [1, 0]), line([2, 0], [3, 0]))).toBe(false);
  });

  it('a line crossing, inside, touching or outside a polygon', () => {
    expect(both(line([-1, 2], [5, 2]), square)).toBe(true);
    expect(both(line([1, 1], [3, 3]), square)).toBe(true);
    expect(both(line([4, 4], [6, 6]), square)).toBe(true);
    expect(both(line([5, 0], [5, 4]), square)).toBe(false);
  });

  it('a line inside a hole misses the polygon; one crossing the hole edge meets it', () => {
    expect(both(line([4, 4], [6, 6]), donut)).toBe(false);
    expect(both(line([4, 4], [8, 8]), donut)).toBe(true);
  });

  it('a MultiLineString meets when any of its lines does', () => {
    expect(both(multiLine([[9, 9], [9, 8]], [[2, -1], [2, 1]]), square)).toBe(true);
    expect(both(multiLine([[9, 9], [9, 8]], [[6, -1], [6, 1]]), square)).toBe(false);
  });
});

describe('intersects: polygons', () => {
  it('overlapping, nested, edge-touching and corner-touching polygons meet', () => {
    expect(both(square, polygon(rect(2, 2, 6, 6)))).toBe(true);
    expect(both(square, polygon(rect(1, 1, 2, 2)))).toBe(true);
    expect(both(square, polygon(rect(-1, -1, 5, 5)))).toBe(true);
    expect(both(square, polygon(rect(4, 0, 8, 4)))).toBe(true);
    expect(both(square, polygon(rect(4, 4, 8, 8)))).toBe(true);
  });

  it('disjoint polygons, and a polygon inside a hole, do not meet', () => {
    expect(both(square, polygon(rect(5, 5, 8, 8)))).toBe(false);
    expect(both(donut, polygon(rect(4, 4, 6, 6)))).toBe(false);
  });

  it('a polygon filling the hole exactly meets along the hole edge', () => {
    expect(both(donut, polygon(rect(3, 3, 7, 7)))).toBe(true);
  });

  it('a cross shape: edges cross although no vertex of either is inside the other', () => {
    const wide = polygon(rect(0, 1, 4, 2));
    const tall = polygon(rect(1, 0, 2, 4));
    expect(both(wide, tall)).toBe(true);
  });

  it('a MultiPolygon meets when any of its polygons does', () => {
    const mp = multiPolygon([rect(10, 10, 12, 12)], [rect(3, 3, 5, 5)]);
    expect(both(mp, square)).toBe(true);
    expect(both(multiPolygon([rect(10, 10, 12, 12)]), square)).toBe(false);
  });
});

describe('intersects: collections and raw values', () => {
  it('a GeometryCollection meets when any member does', () => {
    expect(both(collection(point(9, 9), line([3, 3], [5, 5])), square)).toBe(true);
    expect(both(collection(point(9, 9), line([5, 5], [6, 6])), square)).toBe(false);
  });

  it('accepts raw GeoJSON and lat/lng objects, and is false for invalid ones', () => {
    expect(intersects({ type: 'Point', coordinates: [2, 2] }, square)).toBe(true);
    expect(intersects({ lat: 2, lng: 2 } as unknown as Geometry, square)).toBe(true);
    expect(intersects({ type: 'Polygon', coordinates: [] }, square)).toBe(false);
  });
});

describe('intersects: planar coordinates', () => {
  it('edges are straight in longitude/latitude, not great circles', () => {
    // A 40-degree-wide edge along latitude 60. The great circle between its ends reaches
    // about 61.5N at 0E, so a spherical engine would say it meets this band; the plane says no.
    const edge = line([-20, 60], [20, 60]);
    const band = polygon(rect(-1, 61, 1, 62));
    expect(both(edge, band)).toBe(false);
  });

  it('does not wrap around the antimeridian', () => {
    // From 179E to 179W is 358 degrees of longitude in the plane, crossing 0.
    expect(both(line([179, 0], [-179, 0]), point(0, 0))).toBe(true);
    expect(both(line([179, 0], [-179, 0]), point(180, 0))).toBe(false);
  });
});
