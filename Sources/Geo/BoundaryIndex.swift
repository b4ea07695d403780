import Foundation

/// The grid index behind `BoundaryClassifier`, built once at load in time linear in the edges.
///
/// Two grids share one origin over the four regions' bounding box, grown by twice the
/// sea radius:
/// - coarse buckets list the edges whose bounding box overlaps them, and know which rings
///   contain their centre (found by a scanline), so a point-in-polygon test only counts the
///   crossings of a path from the bucket centre to the point, inside the bucket;
/// - fine cells hold a ready answer when every point of the cell has the same answer and no
///   boundary near it, which is the case for most of the map.
struct BoundaryIndex: Sendable {
    /// Metres per degree of latitude on the mean earth sphere.
    static let metresPerDegree = Coordinate.meanEarthRadius * .pi / 180
    static let bucketSize = 0.2
    static let cellsPerBucket = 8
    /// Keeps scanline and path start points off the 1e-5 degree lattice of the vertices.
    static let centreJitter = 3.1e-7
    /// Fine-cell value meaning "no ready answer: run the exact test".
    static let slowCell: UInt8 = 255

    let territorialSea: Double
    let nearBoundary: Double

    // Edges, structure of arrays.
    let ax: [Double], ay: [Double], bx: [Double], by: [Double]
    let edgeCode: [UInt8]

    // Grid geometry.
    let originX: Double, originY: Double
    let bucketColumns: Int, bucketRows: Int
    let cellColumns: Int, cellRows: Int
    let cellSize: Double

    // Coarse buckets: CSR lists of edge indices and the ring-parity mask at each centre.
    let bucketStart: [Int32]
    let bucketEdges: [Int32]
    let bucketMask: [UInt8]

    // Fine cells: a region code (index into BoundaryRings.regions) or slowCell.
    let cells: [UInt8]

    init(rings: BoundaryRings, territorialSeaMetres: Double, nearBoundaryMetres: Double) {
        territorialSea = territorialSeaMetres
        nearBoundary = max(0, nearBoundaryMetres)
        let k = BoundaryIndex.metresPerDegree

        var ax = [Double](), ay = [Double](), bx = [Double](), by = [Double](), edgeCode = [UInt8]()
        let edgeCount = rings.xs.count
        ax.reserveCapacity(edgeCount); ay.reserveCapacity(edgeCount)
        bx.reserveCapacity(edgeCount); by.reserveCapacity(edgeCount)
        edgeCode.reserveCapacity(edgeCount)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for r in 0..<rings.codes.count {
            let start = rings.ringStarts[r], end = rings.ringStarts[r + 1]
            let code = rings.codes[r]
            for i in start..<end {
                let j = i + 1 == end ? start : i + 1
                ax.append(rings.xs[i]); ay.append(rings.ys[i])
                bx.append(rings.xs[j]); by.append(rings.ys[j])
                edgeCode.append(code)
                if code != BoundaryRings.otherCode {
                    minX = min(minX, rings.xs[i]); maxX = max(maxX, rings.xs[i])
                    minY = min(minY, rings.ys[i]); maxY = max(maxY, rings.ys[i])
                }
            }
        }

        // The grid covers the regions grown by twice the sea radius, so that any point whose
        // sea search could see a region edge also sees every nearer edge of other countries.
        let seaRadius = territorialSeaMetres + nearBoundary
        let marginMetres = 2 * seaRadius + nearBoundary
        let latMargin = marginMetres / k
        let lonMargin = marginMetres / (k * cos(min(89, max(abs(minY), abs(maxY)) + latMargin) * .pi / 180))
        let bs = BoundaryIndex.bucketSize
        let gx = ((minX - lonMargin) / bs).rounded(.down) * bs
        let gy = ((minY - latMargin) / bs).rounded(.down) * bs
        let nbx = Int(((maxX + lonMargin - gx) / bs).rounded(.up))
        let nby = Int(((maxY + latMargin - gy) / bs).rounded(.up))
        let ncx = nbx * BoundaryIndex.cellsPerBucket
        let ncy = nby * BoundaryIndex.cellsPerBucket
        let cs = bs / Double(BoundaryIndex.cellsPerBucket)

        // Bucket lists: count, prefix-sum, fill.
        var counts = [Int32](repeating: 0, count: nbx * nby + 1)
        func bucketRange(_ e: Int) -> (Int, Int, Int, Int)? {
            let x0 = Int(((min(ax[e], bx[e]) - gx) / bs).rounded(.down))
            let x1 = Int(((max(ax[e], bx[e]) - gx) / bs).rounded(.down))
            let y0 = Int(((min(ay[e], by[e]) - gy) / bs).rounded(.down))
            let y1 = Int(((max(ay[e], by[e]) - gy) / bs).rounded(.down))
            if x1 < 0 || y1 < 0 || x0 >= nbx || y0 >= nby { return nil }
            return (max(0, x0), min(nbx - 1, x1), max(0, y0), min(nby - 1, y1))
        }
        for e in 0..<edgeCount {
            guard let (x0, x1, y0, y1) = bucketRange(e) else { continue }
            for row in y0...y1 { for col in x0...x1 { counts[row * nbx + col + 1] += 1 } }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var lists = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for e in 0..<edgeCount {
            guard let (x0, x1, y0, y1) = bucketRange(e) else { continue }
            for row in y0...y1 {
                for col in x0...x1 {
                    let b = row * nbx + col
                    lists[Int(fill[b])] = Int32(e)
                    fill[b] += 1
                }
            }
        }

        let masksAtBuckets = BoundaryIndex.centreMasks(
            ax: ax, ay: ay, bx: bx, by: by, codes: edgeCode,
            originX: gx, originY: gy, size: bs, columns: nbx, rows: nby)
        let masksAtCells = BoundaryIndex.centreMasks(
            ax: ax, ay: ay, bx: bx, by: by, codes: edgeCode,
            originX: gx, originY: gy, size: cs, columns: ncx, rows: ncy)

        // Cells within the near-boundary distance of any edge need the exact test; so do sea
        // cells within the sea radius of a region edge (territorial sea, its limit, and which
        // coast is nearest).
        var nearEdge = [Bool](repeating: false, count: ncx * ncy)
        var nearRegionSea = [Bool](repeating: false, count: ncx * ncy)
        func mark(_ grid: inout [Bool], edge e: Int, metres: Double) {
            let lat = metres / k * 1.01 + 1e-6
            let maxAbsLat = min(89, max(abs(ay[e]), abs(by[e])) + lat)
            let lon = metres / (k * cos(maxAbsLat * .pi / 180)) * 1.01 + 1e-6
            let x0 = Int(((min(ax[e], bx[e]) - lon - gx) / cs).rounded(.down))
            let x1 = Int(((max(ax[e], bx[e]) + lon - gx) / cs).rounded(.down))
            let y0 = Int(((min(ay[e], by[e]) - lat - gy) / cs).rounded(.down))
            let y1 = Int(((max(ay[e], by[e]) + lat - gy) / cs).rounded(.down))
            if x1 < 0 || y1 < 0 || x0 >= ncx || y0 >= ncy { return }
            for row in max(0, y0)...min(ncy - 1, y1) {
                let base = row * ncx
                for col in max(0, x0)...min(ncx - 1, x1) { grid[base + col] = true }
            }
        }
        for e in 0..<edgeCount {
            mark(&nearEdge, edge: e, metres: nearBoundary)
            if edgeCode[e] != BoundaryRings.otherCode { mark(&nearRegionSea, edge: e, metres: seaRadius) }
        }
        var ready = [UInt8](repeating: BoundaryIndex.slowCell, count: ncx * ncy)
        for i in 0..<ready.count {
            if nearEdge[i] { continue }
            let mask = masksAtCells[i]
            if mask != 0 {
                ready[i] = BoundaryIndex.code(ofMask: mask)
            } else if !nearRegionSea[i] {
                ready[i] = BoundaryRings.otherCode
            }
        }

        originX = gx; originY = gy
        bucketColumns = nbx; bucketRows = nby
        cellColumns = ncx; cellRows = ncy; cellSize = cs
        bucketStart = counts; bucketEdges = lists; bucketMask = masksAtBuckets
        cells = ready
        self.ax = ax; self.ay = ay; self.bx = bx; self.by = by; self.edgeCode = edgeCode
    }

    /// The region code of a point inside the rings of `mask` (one bit per code). Countries
    /// do not overlap; should the generalised data make them, a region wins over "other".
    static func code(ofMask mask: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: mask.trailingZeroBitCount)
    }

    static func centre(_ index: Int, origin: Double, size: Double) -> Double {
        origin + (Double(index) + 0.5) * size + centreJitter
    }

    /// For every grid centre, the parity of ring crossings (one bit per region code) of a ray
    /// going west from it: a scanline per row, in time linear in the crossings and the cells.
    static func centreMasks(ax: [Double], ay: [Double], bx: [Double], by: [Double], codes: [UInt8],
                            originX: Double, originY: Double, size: Double,
                            columns: Int, rows: Int) -> [UInt8] {
        let stride = columns + 1
        var toggles = [UInt8](repeating: 0, count: rows * stride)
        for e in 0..<ax.count {
            let lowY = min(ay[e], by[e]), highY = max(ay[e], by[e])
            if lowY == highY { continue }
            // Rows whose centre y satisfies lowY <= y < highY (the half-open rule).
            var first = Int(((lowY - originY - centreJitter) / size - 0.5).rounded(.up))
            var last = Int(((highY - originY - centreJitter) / size - 0.5).rounded(.up)) - 1
            first = max(first, 0)
            last = min(last, rows - 1)
            if first > last { continue }
            let bit = UInt8(1) << codes[e]
            let slope = (bx[e] - ax[e]) / (by[e] - ay[e])
            for row in first...last {
                let y = centre(row, origin: originY, size: size)
                if !(y >= lowY && y < highY) { continue }
                let x = ax[e] + (y - ay[e]) * slope
                // The crossing counts for every centre strictly east of it.
                var col = Int(((x - originX - centreJitter) / size - 0.5).rounded(.down)) + 1
                if col < 0 { col = 0 }
                while col < columns && centre(col, origin: originX, size: size) <= x { col += 1 }
                if col >= columns { continue }
                toggles[row * stride + col] ^= bit
            }
        }
        var masks = [UInt8](repeating: 0, count: rows * columns)
        for row in 0..<rows {
            var mask: UInt8 = 0
            for col in 0..<columns {
                mask ^= toggles[row * stride + col]
                masks[row * columns + col] = mask
            }
        }
        return masks
    }

    // MARK: - Queries

    /// Classifies a WGS-84 point.
    @inline(__always)
    func classify(latitude: Double, longitude: Double) -> (code: UInt8, near: Bool) {
        let fx = (longitude - originX) / cellSize
        let fy = (latitude - originY) / cellSize
        guard fx >= 0, fy >= 0, fx < Double(cellColumns), fy < Double(cellRows) else {
            return (BoundaryRings.otherCode, false)
        }
        let cell = cells[Int(fy) * cellColumns + Int(fx)]
        if cell != BoundaryIndex.slowCell { return (cell, false) }
        return exactClassify(latitude: latitude, longitude: longitude)
    }

    /// The exact test, for points near an edge or in a region's territorial sea.
    func exactClassify(latitude py: Double, longitude px: Double) -> (code: UInt8, near: Bool) {
        let bs = BoundaryIndex.bucketSize
        let col = min(bucketColumns - 1, max(0, Int((px - originX) / bs)))
        let row = min(bucketRows - 1, max(0, Int((py - originY) / bs)))
        let bucket = row * bucketColumns + col
        let cx = BoundaryIndex.centre(col, origin: originX, size: bs)
        let cy = BoundaryIndex.centre(row, origin: originY, size: bs)
        let lowY = min(cy, py), highY = max(cy, py)
        let lowX = min(cx, px), highX = max(cx, px)

        // Walk from the bucket centre (known mask) to the point: north/south along x = cx,
        // then east/west along y = py, toggling the parity of every ring crossed.
        var mask = bucketMask[bucket]
        for i in Int(bucketStart[bucket])..<Int(bucketStart[bucket + 1]) {
            let e = Int(bucketEdges[i])
            let x0 = ax[e], y0 = ay[e], x1 = bx[e], y1 = by[e]
            if (x0 > cx) != (x1 > cx) {
                let y = y0 + (cx - x0) * (y1 - y0) / (x1 - x0)
                if y >= lowY && y < highY { mask ^= UInt8(1) << edgeCode[e] }
            }
            if (y0 > py) != (y1 > py) {
                let x = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
                if x >= lowX && x < highX { mask ^= UInt8(1) << edgeCode[e] }
            }
        }

        let regions = BoundaryRings.regions
        if mask != 0 {
            let code = BoundaryIndex.code(ofMask: mask)
            let answer = regions[Int(code)]
            let d = distances(latitude: py, longitude: px, radius: nearBoundary)
            var near = false
            for c in 0..<BoundaryRings.codeCount where regions[c] != answer && d[c] <= nearBoundary {
                near = true
            }
            return (code, near)
        }

        // At sea: the nearest polygon within the territorial sea gives the answer.
        let L = territorialSea, m = nearBoundary
        let d = distances(latitude: py, longitude: px, radius: L + m)
        var nearest = 0
        for c in 1..<BoundaryRings.codeCount where d[c] < d[nearest] { nearest = c }
        let dMin = d[nearest]
        let nearestIsRegion = UInt8(nearest) != BoundaryRings.otherCode
        if dMin > L {
            // Beyond every territorial sea: outside, near the limit if a region's is close.
            var regionDistance = Double.infinity
            for c in 0..<Int(BoundaryRings.otherCode) { regionDistance = min(regionDistance, d[c]) }
            return (BoundaryRings.otherCode, regionDistance <= L + m)
        }
        let answer = regions[nearest]
        var near = nearestIsRegion && dMin >= L - m
        for c in 0..<BoundaryRings.codeCount where regions[c] != answer {
            // An edge of another answer within reach, or the line where that coast becomes the
            // nearest one (and still within its territorial sea) within reach.
            if d[c] <= m || (d[c] - dMin <= 2 * m && d[c] <= L + m) { near = true }
        }
        return (UInt8(nearest), near)
    }

    /// Distances in metres from the point to the nearest edge of each region code, searching
    /// the buckets within `radius`; infinity where there is none that close. Distances are
    /// planar in a local equirectangular projection, good to well under 0.5% at 25 km.
    func distances(latitude py: Double, longitude px: Double, radius: Double) -> SIMD8<Double> {
        var best = SIMD8<Double>(repeating: .infinity)
        let k = BoundaryIndex.metresPerDegree
        let cosLat = max(cos(py * .pi / 180), 0.01)
        let kx = k * cosLat
        let latR = radius / k + 1e-9
        let lonR = radius / kx + 1e-9
        let bs = BoundaryIndex.bucketSize
        let col0 = max(0, Int(((px - lonR - originX) / bs).rounded(.down)))
        let col1 = min(bucketColumns - 1, Int(((px + lonR - originX) / bs).rounded(.down)))
        let row0 = max(0, Int(((py - latR - originY) / bs).rounded(.down)))
        let row1 = min(bucketRows - 1, Int(((py + latR - originY) / bs).rounded(.down)))
        if col0 > col1 || row0 > row1 { return best }
        let r2 = radius * radius
        for row in row0...row1 {
            for col in col0...col1 {
                let b = row * bucketColumns + col
                for i in Int(bucketStart[b])..<Int(bucketStart[b + 1]) {
                    let e = Int(bucketEdges[i])
                    let x0 = ax[e], x1 = bx[e], y0 = ay[e], y1 = by[e]
                    if min(x0, x1) > px + lonR || max(x0, x1) < px - lonR
                        || min(y0, y1) > py + latR || max(y0, y1) < py - latR { continue }
                    let ux = (x0 - px) * kx, uy = (y0 - py) * k
                    let dx = (x1 - x0) * kx, dy = (y1 - y0) * k
                    let length2 = dx * dx + dy * dy
                    var t = length2 > 0 ? -(ux * dx + uy * dy) / length2 : 0
                    t = min(1, max(0, t))
                    let qx = ux + t * dx, qy = uy + t * dy
                    let d2 = qx * qx + qy * qy
                    if d2 > r2 { continue }
                    let c = Int(edgeCode[e])
                    let d = d2.squareRoot()
                    if d < best[c] { best[c] = d }
                }
            }
        }
        return best
    }
}
