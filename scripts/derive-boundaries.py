#!/usr/bin/env python3
"""Derive Sources/Geo/Resources/boundaries.bin from the Natural Earth country polygons.

Usage:
    python3 scripts/derive-boundaries.py [SOURCE_DIR] [OUTPUT]

SOURCE_DIR defaults to ../shared/data/regions (next to the repository) and must hold
admin0-asia-pacific.geojson and NATURAL_EARTH_VERSION.txt. OUTPUT defaults to
Sources/Geo/Resources/boundaries.bin. Only the Python standard library is used.

What is kept: every ring of mainland China, Hong Kong, Macau and Taiwan, and every ring
of the other countries whose bounding box comes within MARGIN_DEGREES of theirs (a point
farther away than that is "outside" whichever country it is in, so those rings cannot
change an answer). Rings are kept whole, never clipped, because the classifier counts
ray crossings over complete rings.

Format (all integers little-endian):
    magic          4 bytes  b"GEOB"
    format         uint32   1
    version_len    uint32   then version_len bytes of UTF-8, e.g. "natural-earth-5.1.1"
    ring_count     uint32
    vertex_count   uint32   total over all rings
    rings          ring_count x (uint32 region code, uint32 vertex count)
    vertices       vertex_count x (int32 longitude, int32 latitude) in units of 1e-5 degree

Supplement: Natural Earth 1:10m has no polygon for the Matsu Islands (Lienchiang County,
administered from Taipei), which would otherwise take the answer of the Fujian coast nearby.
MATSU_ISLANDS adds a coarse octagon (about 1 km accurate) around each main island, from
public gazetteer positions of the islands (GeoNames places Nangan at 26.15039 N 119.93284 E),
with the region taiwan.

Region codes: 0 mainland, 1 hong_kong, 2 macau, 3 taiwan, 4 other (answered as outside).
A ring's closing vertex (equal to its first) is not stored; rings are in file order and
their vertices follow one another in the vertex block.
"""

import json
import os
import struct
import sys

REGION_CODES = {"mainland": 0, "hong_kong": 1, "macau": 2, "taiwan": 3, "other": 4}
MARGIN_DEGREES = 3.0
SCALE = 100000

# (name, centre latitude, centre longitude, east-west half-width km, north-south half-height km)
MATSU_ISLANDS = [
    ("Nangan", 26.157, 119.937, 2.6, 1.6),
    ("Beigan", 26.225, 119.995, 2.4, 1.5),
    ("Xiju", 25.970, 119.936, 1.3, 0.9),
    ("Dongju", 25.962, 119.978, 1.3, 1.1),
    ("Dongyin", 26.368, 120.488, 2.0, 1.4),
]


def octagon(lat, lon, half_width_km, half_height_km):
    """An octagon inscribed in the given ellipse, counter-clockwise, in 1e-5 degree."""
    import math
    km_per_degree = 6371.0088 * math.pi / 180
    points = []
    for i in range(8):
        angle = math.pi * (i / 4.0 + 0.125)
        x = lon + half_width_km * math.cos(angle) / (km_per_degree * math.cos(math.radians(lat)))
        y = lat + half_height_km * math.sin(angle) / km_per_degree
        points.append((int(round(x * SCALE)), int(round(y * SCALE))))
    return points


def rings_of(geometry):
    if geometry["type"] == "Polygon":
        polygons = [geometry["coordinates"]]
    elif geometry["type"] == "MultiPolygon":
        polygons = geometry["coordinates"]
    else:
        raise ValueError("unexpected geometry type %s" % geometry["type"])
    for polygon in polygons:
        for ring in polygon:
            yield ring


def bbox(ring):
    xs = [p[0] for p in ring]
    ys = [p[1] for p in ring]
    return min(xs), min(ys), max(xs), max(ys)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "..", "shared", "data", "regions")
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(repo, "Sources", "Geo", "Resources", "boundaries.bin")

    with open(os.path.join(source, "NATURAL_EARTH_VERSION.txt")) as f:
        version = "natural-earth-" + f.read().strip()
    with open(os.path.join(source, "admin0-asia-pacific.geojson")) as f:
        collection = json.load(f)

    rings = []  # (code, [(lon, lat) in 1e-5 degree])
    for feature in collection["features"]:
        code = REGION_CODES[feature["properties"]["region"]]
        for ring in rings_of(feature["geometry"]):
            points = [(int(round(p[0] * SCALE)), int(round(p[1] * SCALE))) for p in ring]
            if len(points) > 1 and points[0] == points[-1]:
                points.pop()
            # Drop repeated consecutive vertices: they make zero-length edges.
            deduped = [points[0]]
            for p in points[1:]:
                if p != deduped[-1]:
                    deduped.append(p)
            if len(deduped) > 1 and deduped[0] == deduped[-1]:
                deduped.pop()
            if len(deduped) >= 3:
                rings.append((code, deduped))

    for _name, lat, lon, half_width, half_height in MATSU_ISLANDS:
        rings.append((REGION_CODES["taiwan"], octagon(lat, lon, half_width, half_height)))

    # Bounding box of the four regions, grown by the margin.
    region_boxes = [bbox(points) for code, points in rings if code != REGION_CODES["other"]]
    margin = int(MARGIN_DEGREES * SCALE)
    min_x = min(b[0] for b in region_boxes) - margin
    min_y = min(b[1] for b in region_boxes) - margin
    max_x = max(b[2] for b in region_boxes) + margin
    max_y = max(b[3] for b in region_boxes) + margin

    kept = []
    for code, points in rings:
        x0, y0, x1, y1 = bbox(points)
        if code != REGION_CODES["other"] or (x0 <= max_x and x1 >= min_x and y0 <= max_y and y1 >= min_y):
            kept.append((code, points))

    encoded_version = version.encode("utf-8")
    out = bytearray()
    out += b"GEOB"
    out += struct.pack("<II", 1, len(encoded_version))
    out += encoded_version
    out += struct.pack("<II", len(kept), sum(len(points) for _, points in kept))
    for code, points in kept:
        out += struct.pack("<II", code, len(points))
    for _, points in kept:
        out += struct.pack("<%di" % (2 * len(points)), *[c for p in points for c in p])

    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "wb") as f:
        f.write(out)
    print("%s: %d rings, %d vertices, %d bytes, %s" % (
        output, len(kept), sum(len(p) for _, p in kept), len(out), version))


if __name__ == "__main__":
    main()
