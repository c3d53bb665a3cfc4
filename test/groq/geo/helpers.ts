/** Small builders so that each test reads as the shape it draws. Coordinates are [lng, lat]. */
import { toGeometry, type Geometry } from '../../../src/groq/geo/index.ts';

export type Position = [number, number];

/** geo(value), failing the test if the value is not a valid geometry. */
export function geo(value: unknown): Geometry {
  const g = toGeometry(value);
  if (!g) throw new Error(`not a valid geometry: ${JSON.stringify(value)}`);
  return g;
}

export function point(x: number, y: number): Geometry {
  return geo({ type: 'Point', coordinates: [x, y] });
}

export function multiPoint(...ps: Position[]): Geometry {
  return geo({ type: 'MultiPoint', coordinates: ps });
}

export function line(...ps: Position[]): Geometry {
  return geo({ type: 'LineString', coordinates: ps });
}

export function multiLine(...lines: Position[][]): Geometry {
  return geo({ type: 'MultiLineString', coordinates: lines });
}

/** Closes each ring by repeating its first position. */
function close(ring: Position[]): Position[] {
  const first = ring[0];
  return first ? [...ring, first] : ring;
}

export function polygon(shell: Position[], ...holes: Position[][]): Geometry {
  return geo({ type: 'Polygon', coordinates: [shell, ...holes].map(close) });
}

export function multiPolygon(...polygons: Position[][][]): Geometry {
  return geo({ type: 'MultiPolygon', coordinates: polygons.map((rings) => rings.map(close)) });
}

/** Axis-aligned rectangle as a ring, counter-clockwise. */
export function rect(x0: number, y0: number, x1: number, y1: number): Position[] {
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
  ];
}

export function collection(...geometries: Geometry[]): Geometry {
  return geo({ type: 'GeometryCollection', geometries });
}
