import { describe, expect, it } from 'vitest';
import { distance, type Geometry } from '../../../src/groq/geo/index.ts';
import { line, multiPoint, point, polygon, rect } from './helpers.ts';

/** The WGS 84 equatorial radius, which the reference implementation uses for its sphere. */
const R = 6_378_137;

describe('distance', () => {
  it('is the great-circle distance on a sphere of radius 6,378,137 m', () => {
    // One degree of longitude along the equator is 1/360 of the circumference.
    expect(distance(point(0, 0), point(1, 0))).toBeCloseTo((2 * Math.PI * R) / 360, 6);
    expect(distance(point(0, -90), point(0, 90))).toBeCloseTo(Math.PI * R, 6);
  });

  it('stays finite and exact for antipodal points', () => {
    expect(distance(point(0, 0), point(180, 0))).toBeCloseTo(Math.PI * R, 6);
  });

  it('crosses the antimeridian the short way', () => {
    expect(distance(point(179.5, 0), point(-179.5, 0))).toBeCloseTo((2 * Math.PI * R) / 360, 6);
  });

  it('takes the great circle, shorter than the way along the parallel', () => {
    const atEquator = distance(point(0, 0), point(10, 0)) ?? 0;
    const at60 = distance(point(0, 60), point(10, 60)) ?? 0;
    const alongParallel = atEquator * Math.cos(Math.PI / 3);
    expect(at60).toBeLessThan(alongParallel);
    expect(at60).toBeGreaterThan(alongParallel * 0.99);
  });

  it('is zero from a point to itself and symmetric to the last bit', () => {
    const oslo = point(10.75, 59.91);
    const bergen = point(5.32415, 60.39299);
    expect(distance(oslo, oslo)).toBe(0);
    expect(distance(oslo, bergen)).toBe(distance(bergen, oslo));
  });

  it('accepts lat/lng objects as points', () => {
    const raw = { lat: 0, lng: 1 } as unknown as Geometry;
    expect(distance(raw, point(0, 0))).toBe(distance(point(1, 0), point(0, 0)));
  });

  it('is null unless both sides are single points', () => {
    const p = point(0, 0);
    expect(distance(p, multiPoint([1, 1]))).toBeNull();
    expect(distance(line([0, 0], [1, 1]), p)).toBeNull();
    expect(distance(p, polygon(rect(0, 0, 1, 1)))).toBeNull();
    expect(distance(p, { type: 'Polygon', coordinates: [] })).toBeNull();
    expect(distance({ type: 'Point', coordinates: [1] }, p)).toBeNull();
  });
});
