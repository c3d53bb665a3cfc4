import { describe, expect, it } from 'vitest';
import { contains, type Geometry } from '../../../src/groq/geo/index.ts';
import { collection, line, multiLine, multiPoint, multiPolygon, point, polygon, rect } from './helpers.ts';

const square = polygon(rect(0, 0, 4, 4));
const donut = polygon(rect(0, 0, 10, 10), rect(3, 3, 7, 7));
/** A U shape: the notch between x=1 and x=3 is open from y=1 upwards. */
const cup = polygon([
  [0, 0],
  [4, 0],
  [4, 4],
  [3, 4],
  [3, 1],
  [1, 1],
  [1, 4],
  [0, 4],
]);

describe('contains: a point', () => {
  it('in a point or multipoint only when equal', () => {
    expect(contains(point(1, 2), point(1, 2))).toBe(true);
    expect(contains(point(1, 2), point(2, 1))).toBe(false);
    expect(contains(multiPoint([0, 0], [1, 2]), point(1, 2))).toBe(true);
  });

  it('on a line, its vertices and ends included', () => {
    const l = line([0, 0], [2, 2], [4, 0]);
    expect(contains(l, point(0, 0))).toBe(true);
    expect(contains(l, point(2, 2))).toBe(true);
    expect(contains(l, point(1, 1))).toBe(true);
    expect(contains(l, point(1, 1.5))).toBe(false);
  });

  it('in a polygon, boundary included, hole excluded', () => {
    expect(contains(square, point(2, 2))).toBe(true);
    expect(contains(square, point(0, 2))).toBe(true);
    expect(contains(square, point(0, 0))).toBe(true);
    expect(contains(square, point(4.1, 2))).toBe(false);
    expect(contains(donut, point(5, 5))).toBe(false);
    expect(contains(donut, point(7, 5))).toBe(true);
  });

  it('a MultiPoint needs every point inside', () => {
    expect(contains(square, multiPoint([1, 1], [3, 3]))).toBe(true);
    expect(contains(square, multiPoint([1, 1], [5, 5]))).toBe(false);
  });

  it('a lat/lng point (raw) works like a GeoJSON Point', () => {
    expect(contains(square, { lat: 1, lng: 3 } as unknown as Geometry)).toBe(true);
  });
});

describe('contains: a line', () => {
  it('in a line: a stretch of it, the same line, or not', () => {
    const l = line([0, 0], [4, 0], [4, 4]);
    expect(contains(l, line([1, 0], [4, 0], [4, 2]))).toBe(true);
    expect(contains(l, line([4, 4], [4, 0], [0, 0]))).toBe(true);
    expect(contains(l, line([1, 0], [5, 0]))).toBe(false);
    expect(contains(l, line([0, 0], [4, 4]))).toBe(false);
  });

  it('in a MultiLineString, covered by two of its lines together', () => {
    const ml = multiLine(
      [
        [0, 0],
        [2, 0],
      ],
      [
        [2, 0],
        [4, 0],
      ],
    );
    expect(contains(ml, line([1, 0], [3, 0]))).toBe(true);
  });

  it('not in a point or a line it only touches', () => {
    expect(contains(point(0, 0), line([0, 0], [1, 1]))).toBe(false);
    expect(contains(line([0, 0], [1, 1]), line([1, 1], [2, 2]))).toBe(false);
  });

  it('in a convex polygon, along its edge, or poking out', () => {
    expect(contains(square, line([1, 1], [3, 3], [1, 3]))).toBe(true);
    expect(contains(square, line([0, 0], [4, 0], [4, 4]))).toBe(true);
    expect(contains(square, line([1, 1], [5, 1]))).toBe(false);
  });

  it('not in a concave polygon when it spans the notch, though both ends are inside', () => {
    expect(contains(cup, line([0.5, 3], [3.5, 3]))).toBe(false);
    expect(contains(cup, line([0.5, 0.5], [3.5, 0.5]))).toBe(true);
    // Along the bottom of the notch: on the boundary all the way.
    expect(contains(cup, line([0.5, 1], [3.5, 1]))).toBe(true);
  });

  it('not in a polygon when it crosses the hole', () => {
    expect(contains(donut, line([1, 5], [9, 5]))).toBe(false);
    expect(contains(donut, line([1, 1], [9, 1]))).toBe(true);
  });
});

describe('contains: a polygon', () => {
  it('contains itself', () => {
    expect(contains(square, square)).toBe(true);
    expect(contains(donut, donut)).toBe(true);
    expect(contains(cup, cup)).toBe(true);
  });

  it('contains a smaller polygon, also one sharing edges with it', () => {
    expect(contains(square, polygon(rect(1, 1, 3, 3)))).toBe(true);
    expect(contains(square, polygon(rect(0, 0, 2, 2)))).toBe(true);
  });

  it('does not contain an overlapping or bigger polygon', () => {
    expect(contains(square, polygon(rect(2, 2, 6, 6)))).toBe(false);
    expect(contains(polygon(rect(1, 1, 3, 3)), square)).toBe(false);
  });

  it('does not contain a polygon whose vertices are all inside but whose edge leaves it', () => {
    const bridge = polygon([
      [0.5, 3],
      [3.5, 3],
      [3.5, 3.5],
      [0.5, 3.5],
    ]);
    expect(contains(cup, bridge)).toBe(false);
  });

  it('does not contain a polygon covering its hole, or lying in it, or equal to it', () => {
    expect(contains(donut, polygon(rect(2, 2, 8, 8)))).toBe(false);
    expect(contains(donut, polygon(rect(4, 4, 6, 6)))).toBe(false);
    expect(contains(donut, polygon(rect(3, 3, 7, 7)))).toBe(false);
  });

  it('contains a polygon with a hole only if that hole covers its own hole', () => {
    expect(contains(donut, polygon(rect(1, 1, 9, 9), rect(2, 2, 8, 8)))).toBe(true);
    expect(contains(donut, polygon(rect(1, 1, 9, 9), rect(3, 3, 7, 7)))).toBe(true);
    expect(contains(donut, polygon(rect(1, 1, 9, 9), rect(4, 4, 6, 6)))).toBe(false);
  });

  it('no line or point contains a polygon', () => {
    expect(contains(line([0, 0], [4, 0]), square)).toBe(false);
    expect(contains(point(0, 0), square)).toBe(false);
  });
});

describe('contains: multi-polygons and collections', () => {
  const twoSquares = multiPolygon([rect(0, 0, 2, 2)], [rect(2, 0, 4, 2)]);

  it('each part must lie within one of the polygons', () => {
    expect(contains(twoSquares, multiPolygon([rect(0, 0, 1, 1)], [rect(3, 0, 4, 1)]))).toBe(true);
    expect(contains(twoSquares, polygon(rect(1, 0, 3, 1)))).toBe(false);
    expect(contains(twoSquares, line([0.5, 0.5], [3.5, 0.5]))).toBe(false);
    expect(contains(twoSquares, multiPoint([0.5, 0.5], [3.5, 0.5]))).toBe(true);
  });

  it('a collection contains what its members cover, and is contained part by part', () => {
    const c = collection(square, line([10, 10], [20, 10]));
    expect(contains(c, collection(point(1, 1), line([12, 10], [14, 10])))).toBe(true);
    expect(contains(c, collection(point(1, 1), point(12, 11)))).toBe(false);
    expect(contains(square, collection(point(1, 1), polygon(rect(2, 2, 3, 3))))).toBe(true);
  });
});

describe('contains: large shapes', () => {
  /** A regular polygon approximating a circle. */
  const circle = (cx: number, cy: number, r: number, n: number) =>
    polygon(
      Array.from({ length: n }, (_, k): [number, number] => {
        const angle = (2 * Math.PI * k) / n;
        return [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
      }),
    );

  it('handles thousands of vertices', () => {
    const big = circle(0, 0, 40, 4000);
    expect(contains(big, circle(5, 5, 20, 400))).toBe(true);
    expect(contains(big, circle(25, 25, 20, 400))).toBe(false);
  });
});

describe('contains: invalid input and planar semantics', () => {
  it('is false when either side is not a valid geometry', () => {
    expect(contains({ type: 'Polygon', coordinates: [] }, point(0, 0))).toBe(false);
    expect(contains(square, { type: 'Nope' })).toBe(false);
  });

  it('reads edges as straight lines in longitude/latitude', () => {
    // The shell edge along 60N: in the plane (0, 61) is inside this polygon; on the sphere the
    // great circle from (-20, 60) to (20, 60) passes north of it at 0E, leaving it outside.
    const zone = polygon([
      [-20, 60],
      [20, 60],
      [20, 70],
      [-20, 70],
    ]);
    expect(contains(zone, point(0, 61))).toBe(true);
  });

  it('a polygon from 170E to 170W spans 340 degrees across 0, not 20 across the antimeridian', () => {
    const band = polygon([
      [170, 0],
      [-170, 0],
      [-170, 10],
      [170, 10],
    ]);
    expect(contains(band, point(0, 5))).toBe(true);
    expect(contains(band, point(175, 5))).toBe(false);
  });
});
