import { describe, expect, it } from 'vitest';
import { latLng, toGeometry } from '../../../src/groq/geo/index.ts';

const square = [
  [0, 0],
  [4, 0],
  [4, 4],
  [0, 4],
  [0, 0],
];

describe('toGeometry: lat/lng points', () => {
  it('turns a geopoint into a GeoJSON Point with [lng, lat]', () => {
    expect(toGeometry({ lat: 59.9, lng: 10.7 })).toEqual({ type: 'Point', coordinates: [10.7, 59.9] });
  });

  it('accepts lon for longitude, as the spec allows', () => {
    expect(toGeometry({ lat: 1, lon: 2 })).toEqual({ type: 'Point', coordinates: [2, 1] });
  });

  it("ignores Sanity's _type, _key, alt and other keys", () => {
    expect(toGeometry({ _type: 'geopoint', _key: 'k', lat: 1, lng: 2, alt: 30, note: 'x' })).toEqual({
      type: 'Point',
      coordinates: [2, 1],
    });
  });

  it.each([
    ['both lng and lon', { lat: 1, lng: 2, lon: 2 }],
    ['no longitude', { lat: 1 }],
    ['no latitude', { lng: 1 }],
    ['only lon', { lon: 1 }],
    ['a string coordinate', { lat: 1, lng: '2' }],
    ['a null coordinate', { lat: null, lng: 2 }],
    ['latitude past the pole', { lat: 90.5, lng: 0 }],
    ['longitude past the antimeridian', { lat: 0, lng: 180.5 }],
    ['an infinite coordinate', { lat: Infinity, lng: 0 }],
  ])('is null with %s', (_what, value) => {
    expect(toGeometry(value)).toBeNull();
  });

  it('accepts the extremes of the ranges', () => {
    expect(toGeometry({ lat: -90, lng: 180 })).toEqual({ type: 'Point', coordinates: [180, -90] });
  });
});

describe('toGeometry: GeoJSON', () => {
  it.each([
    ['Point', [1, 2]],
    ['Point', [1, 2, 100]],
    [
      'MultiPoint',
      [
        [1, 2],
        [3, 4],
      ],
    ],
    [
      'LineString',
      [
        [1, 2],
        [3, 4],
      ],
    ],
    [
      'MultiLineString',
      [
        [
          [1, 2],
          [3, 4],
        ],
      ],
    ],
    ['Polygon', [square]],
    ['MultiPolygon', [[square]]],
  ])('returns a valid %s as {type, coordinates}', (type, coordinates) => {
    expect(toGeometry({ type, coordinates })).toEqual({ type, coordinates });
  });

  it('drops keys that are not part of the geometry', () => {
    expect(toGeometry({ type: 'Point', coordinates: [1, 2], crs: 'x', properties: { a: 1 } })).toEqual({
      type: 'Point',
      coordinates: [1, 2],
    });
  });

  it('returns a copy that does not share arrays with the input', () => {
    const position = [1, 2];
    const out = toGeometry({ type: 'Point', coordinates: position });
    position[0] = 9;
    expect(out).toEqual({ type: 'Point', coordinates: [1, 2] });
  });

  it('is idempotent: geo(geo(x)) equals geo(x)', () => {
    const once = toGeometry({ lat: 1, lng: 2 });
    expect(toGeometry(once)).toEqual(once);
  });

  it('reads a GeometryCollection and normalizes its members', () => {
    expect(
      toGeometry({
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [1, 2], extra: true },
          { type: 'Polygon', coordinates: [square] },
        ],
      }),
    ).toEqual({
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: [1, 2] },
        { type: 'Polygon', coordinates: [square] },
      ],
    });
  });

  it.each([
    ['a number', 42],
    ['a string', 'hello'],
    ['a boolean', true],
    ['null', null],
    ['an array (a bare position)', [10, 59]],
    ['an empty object', {}],
    ['an unknown type', { type: 'InvalidType' }],
    ['a Feature', { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, properties: {} }],
    ['a FeatureCollection', { type: 'FeatureCollection', features: [] }],
    ['a Point with one coordinate', { type: 'Point', coordinates: [100] }],
    ['a Point with four coordinates', { type: 'Point', coordinates: [1, 2, 3, 4] }],
    ['a Point with a string coordinate', { type: 'Point', coordinates: ['1', 2] }],
    ['a Point out of range', { type: 'Point', coordinates: [200, 0] }],
    ['a MultiPoint of numbers', { type: 'MultiPoint', coordinates: [100] }],
    ['an empty MultiPoint', { type: 'MultiPoint', coordinates: [] }],
    ['a LineString of numbers', { type: 'LineString', coordinates: [10, 10] }],
    ['a LineString with one position', { type: 'LineString', coordinates: [[1, 2]] }],
    [
      'a LineString whose positions are all equal',
      {
        type: 'LineString',
        coordinates: [
          [1, 2],
          [1, 2],
        ],
      },
    ],
    ['a MultiLineString of numbers', { type: 'MultiLineString', coordinates: [10, 10] }],
    ['a Polygon of numbers', { type: 'Polygon', coordinates: [100] }],
    ['a Polygon with no rings', { type: 'Polygon', coordinates: [] }],
    ['a MultiPolygon of numbers', { type: 'MultiPolygon', coordinates: [100] }],
    ['a GeometryCollection without geometries', { type: 'GeometryCollection' }],
    ['a GeometryCollection holding a lat/lng point', { type: 'GeometryCollection', geometries: [{ lat: 1, lng: 2 }] }],
  ])('is null for %s', (_what, value) => {
    expect(toGeometry(value)).toBeNull();
  });

  it('keeps repeated positions in a line (they do not change its shape)', () => {
    const coordinates = [
      [1, 2],
      [1, 2],
      [3, 4],
    ];
    expect(toGeometry({ type: 'LineString', coordinates })).toEqual({ type: 'LineString', coordinates });
  });
});

describe('toGeometry: polygon validity', () => {
  const poly = (...rings: number[][][]) => toGeometry({ type: 'Polygon', coordinates: rings });

  it('accepts either winding order', () => {
    expect(poly([...square].reverse())).not.toBeNull();
  });

  it('rejects a ring that is not closed', () => {
    expect(poly(square.slice(0, 4))).toBeNull();
    expect(
      poly([
        [0, 0],
        [1, 0],
      ]),
    ).toBeNull();
  });

  it('rejects a ring of fewer than four positions', () => {
    expect(
      poly([
        [0, 0],
        [1, 0],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it('rejects a vertex repeated back to back', () => {
    expect(
      poly([
        [0, 0],
        [4, 0],
        [4, 4],
        [4, 4],
        [0, 4],
        [0, 0],
      ]),
    ).toBeNull();
    expect(
      poly([
        [0, 0],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it('rejects a self-intersecting ring (bow tie)', () => {
    expect(
      poly([
        [0, 0],
        [4, 4],
        [4, 0],
        [0, 4],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it('rejects a ring that folds back on itself or revisits a vertex', () => {
    // Spike: goes out to (6, 2) and back along the same line.
    expect(
      poly([
        [0, 0],
        [4, 0],
        [4, 2],
        [6, 2],
        [4, 2],
        [4, 4],
        [0, 4],
        [0, 0],
      ]),
    ).toBeNull();
    // Figure eight through (2, 2).
    expect(
      poly([
        [0, 0],
        [2, 2],
        [4, 0],
        [4, 4],
        [2, 2],
        [0, 4],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it('rejects a flat ring (all vertices on one line)', () => {
    expect(
      poly([
        [0, 0],
        [1, 0],
        [2, 0],
        [0, 0],
      ]),
    ).toBeNull();
  });

  it('accepts a hole inside the shell, also one touching it at a point', () => {
    const hole = [
      [1, 1],
      [1, 2],
      [2, 2],
      [2, 1],
      [1, 1],
    ];
    expect(poly(square, hole)).not.toBeNull();
    const touching = [
      [0, 2],
      [2, 3],
      [2, 1],
      [0, 2],
    ];
    expect(poly(square, touching)).not.toBeNull();
  });

  it('rejects a hole that crosses the shell or lies outside it', () => {
    const crossing = [
      [3, 1],
      [5, 1],
      [5, 2],
      [3, 2],
      [3, 1],
    ];
    expect(poly(square, crossing)).toBeNull();
    const outside = [
      [6, 6],
      [7, 6],
      [7, 7],
      [6, 6],
    ];
    expect(poly(square, outside)).toBeNull();
  });

  it('rejects a MultiPolygon with one invalid polygon', () => {
    const bowTie = [
      [0, 0],
      [4, 4],
      [4, 0],
      [0, 4],
      [0, 0],
    ];
    expect(toGeometry({ type: 'MultiPolygon', coordinates: [[square], [bowTie]] })).toBeNull();
  });
});

describe('latLng', () => {
  it('builds a Point from latitude and longitude', () => {
    expect(latLng(59.9, 10.7)).toEqual({ type: 'Point', coordinates: [10.7, 59.9] });
  });

  it('is null for non-numbers and out-of-range values', () => {
    expect(latLng(null as unknown as number, 3)).toBeNull();
    expect(latLng(3, Number.NaN)).toBeNull();
    expect(latLng(91, 0)).toBeNull();
  });
});
