/**
 * The public value shape (GeoJSON geometry) and the flattened internal form the
 * predicates work on.
 */

/** A GeoJSON geometry, as `geo()` returns it and a query result serializes it. */
export type Geometry = { type: string; coordinates?: unknown; geometries?: Geometry[] };

/** A position in the plane: x is longitude, y is latitude, both in degrees. */
export interface Pt {
  readonly x: number;
  readonly y: number;
}

/** A closed ring: the last point repeats the first, so edges are ring[i] -> ring[i + 1]. */
export type Ring = readonly Pt[];

/** First ring is the shell, the others are holes. */
export type Polygon = readonly Ring[];

/**
 * Every geometry flattened into its parts. Multi* types and GeometryCollection
 * differ only in how many parts they have, so the predicates never look at `type`.
 */
export interface Shape {
  readonly points: readonly Pt[];
  readonly lines: readonly (readonly Pt[])[];
  readonly polygons: readonly Polygon[];
}
