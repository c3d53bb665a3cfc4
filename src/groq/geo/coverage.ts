/**
 * The building block of geo::contains: cut a path's edges wherever they meet
 * another shape's edges, and classify each piece by one point in its middle.
 * Between two cuts a piece cannot change sides, so one sample decides it.
 * Pieces that run along the other boundary are known from the exact collinear
 * test and never sampled: a rounded midpoint of such a piece may fall a hair
 * to either side.
 */
import { meetParams, sweepPairs, type Edge } from './segments.ts';
import type { Pt } from './types.ts';

export interface Piece {
  /** The piece lies on one of the other shape's edges. */
  readonly onOther: boolean;
  /** A point strictly inside the piece. */
  readonly mid: Pt;
}

interface Meets {
  cuts: number[];
  overlaps: [number, number][];
}

function covered(from: number, to: number, overlaps: readonly [number, number][]): boolean {
  return overlaps.some(([a, b]) => a <= from && to <= b);
}

/**
 * Visits the pieces of `path` cut by `other`; stops as soon as `visit`
 * returns true and reports whether it did.
 */
export function somePiece(path: readonly Edge[], other: readonly Edge[], visit: (piece: Piece) => boolean): boolean {
  const meets = new Map<Edge, Meets>();
  sweepPairs(path, other, (e, f) => {
    let m = meets.get(e);
    if (!m) {
      m = { cuts: [], overlaps: [] };
      meets.set(e, m);
    }
    meetParams(e, f, m.cuts, m.overlaps);
  });
  for (const e of path) {
    const m = meets.get(e);
    const cuts = [0, 1, ...(m?.cuts ?? []).filter((t) => t > 0 && t < 1)].sort((a, b) => a - b);
    for (let k = 0; k + 1 < cuts.length; k++) {
      const from = cuts[k] as number;
      const to = cuts[k + 1] as number;
      if (to <= from) continue;
      const t = (from + to) / 2;
      const piece = {
        onOther: covered(from, to, m?.overlaps ?? []),
        mid: { x: e.a.x + t * (e.b.x - e.a.x), y: e.a.y + t * (e.b.y - e.a.y) },
      };
      if (visit(piece)) return true;
    }
  }
  return false;
}

/** Every edge of `path` lies on the union of `other`'s edges. */
export function pathOnEdges(path: readonly Edge[], other: readonly Edge[]): boolean {
  return !somePiece(path, other, (piece) => !piece.onOther);
}
