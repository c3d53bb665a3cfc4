/**
 * geo::distance: great-circle distance between two points by the haversine
 * formula on a sphere of radius 6,378,137 m (the WGS 84 equatorial radius).
 * That radius, and taking the differences in degrees before converting to
 * radians, are what reproduce the conformance suite's expected distance to
 * the last bit (see README.md).
 */
const EARTH_RADIUS_M = 6_378_137;

function radians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

export function haversineMeters(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = radians(lat2 - lat1);
  const dLng = radians(lng2 - lng1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(dLng / 2) ** 2;
  // min() guards against h creeping past 1 by rounding for antipodal points.
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));
}
