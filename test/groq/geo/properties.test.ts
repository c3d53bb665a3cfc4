/**
 * Properties that must hold for any shapes, checked on random star-shaped
 * polygons (simple by construction), segments and points. Coordinates are
 * small integers scaled down so that exact boundary hits do happen.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { contains, intersects, toGeometry, type Geometry } from '../../../src/groq/geo/index.ts';
import { geo, line, point, polygon, rect, type Position } from './helpers.ts';

const coord = fc.integer({ min: -40, max: 40 }).map((n) => n / 4);
const position = fc.tuple(coord, coord);

/** A polygon whose vertices go round a centre at increasing angles, so it never crosses itself. */
const starPolygon = fc
  .record({
    cx: coord,
    cy: coord,
    radii: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 3, maxLength: 12 }),
  })
  .map(({ cx, cy, radii }) => {
    const ring: Position[] = radii.map((r, k) => {
      const angle = (2 * Math.PI * k) / radii.length;
      return [cx + Math.round(r * Math.cos(angle) * 4) / 4, cy + Math.round(r * Math.sin(angle) * 4) / 4];
    });
    return toGeometry({ type: 'Polygon', coordinates: [[...ring, ring[0]]] });
  })
  .filter((g): g is Geometry => g !== null);

const segment = fc
  .tuple(position, position)
  .filter(([a, b]) => a[0] !== b[0] || a[1] !== b[1])
  .map(([a, b]) => line(a, b));

const anyShape = fc.oneof(
  position.map(([x, y]) => point(x, y)),
  segment,
  starPolygon,
);

/**
 * The polygon scaled by 1/2 towards its bounding-box centre: often inside the
 * original, not always (star polygons need not be star-shaped around that centre).
 */
function shrunk(g: Geometry): Geometry {
  const ring = (g.coordinates as number[][][])[0] ?? [];
  const xs = ring.map(([x = 0]) => x);
  const ys = ring.map(([, y = 0]) => y);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  return geo({ type: 'Polygon', coordinates: [ring.map(([x = 0, y = 0]) => [(x + cx) / 2, (y + cy) / 2])] });
}

/** Reference point-in-polygon by winding number, written independently of the module. */
function windingContains(ring: number[][], [x, y]: Position): boolean {
  let winding = 0;
  for (let k = 0; k + 1 < ring.length; k++) {
    const [ax = 0, ay = 0] = ring[k] ?? [];
    const [bx = 0, by = 0] = ring[k + 1] ?? [];
    const cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    const inBox = x >= Math.min(ax, bx) && x <= Math.max(ax, bx) && y >= Math.min(ay, by) && y <= Math.max(ay, by);
    if (cross === 0 && inBox) return true;
    if (ay <= y && by > y && cross > 0) winding++;
    if (ay > y && by <= y && cross < 0) winding--;
  }
  return winding !== 0;
}

describe('geo predicates: properties', () => {
  it('intersects is symmetric', () => {
    fc.assert(fc.property(anyShape, anyShape, (a, b) => intersects(a, b) === intersects(b, a)));
  });

  it('every shape contains itself', () => {
    fc.assert(fc.property(anyShape, (a) => contains(a, a)));
  });

  it('containment implies intersection', () => {
    fc.assert(fc.property(anyShape, anyShape, (a, b) => !contains(a, b) || intersects(a, b)));
  });

  it('a point is contained exactly when it intersects', () => {
    fc.assert(
      fc.property(anyShape, position, (a, [x, y]) => contains(a, point(x, y)) === intersects(a, point(x, y))),
    );
  });

  it('point in polygon agrees with a winding-number reference', () => {
    fc.assert(
      fc.property(starPolygon, position, (p, q) => {
        const ring = (p.coordinates as number[][][])[0] ?? [];
        return contains(p, point(q[0], q[1])) === windingContains(ring, q);
      }),
      { numRuns: 500 },
    );
  });

  it('a rectangle (convex) contains a segment exactly when it contains both ends', () => {
    const box = polygon(rect(-3, -2, 4, 5));
    fc.assert(
      fc.property(position, position, (a, b) => {
        fc.pre(a[0] !== b[0] || a[1] !== b[1]);
        const both = contains(box, point(a[0], a[1])) && contains(box, point(b[0], b[1]));
        return contains(box, line(a, b)) === both;
      }),
    );
  });

  it('containment is transitive', () => {
    fc.assert(
      fc.property(starPolygon, position, (a, [x, y]) => {
        const b = shrunk(a);
        const cs = [shrunk(b), point(x, y)];
        return cs.every((c) => !(contains(a, b) && contains(b, c)) || contains(a, c));
      }),
      { numRuns: 300 },
    );
  });

  it('without holes, containing a polygon is the same as containing its boundary', () => {
    // Shrunk copies give contained cases, independent polygons mostly uncontained ones.
    const boundary = (g: Geometry): Geometry =>
      geo({ type: 'LineString', coordinates: (g.coordinates as number[][][])[0] });
    fc.assert(
      fc.property(starPolygon, starPolygon, fc.boolean(), (p, other, shrink) => {
        const q = shrink ? shrunk(p) : other;
        return contains(p, q) === contains(p, boundary(q));
      }),
      { numRuns: 300 },
    );
  });
});
