/// Converts points between WGS-84, GCJ-02 and BD-09 the way Chinese providers apply them.
///
/// The GCJ-02 offset exists only where providers use it: mainland China, Hong Kong and Macau
/// (`Region.usesGCJ02`), decided by the region classifier rather than a rectangle. Elsewhere
/// GCJ-02 coincides with WGS-84, and BD-09 is the Baidu offset of that unshifted point.
public struct DatumConverter: Sendable {
    public let classifier: any RegionClassifying

    public init(classifier: any RegionClassifying) {
        self.classifier = classifier
    }

    /// Converts `point` from one datum to another.
    public func convert(_ point: Coordinate, from: Datum, to: Datum) -> Coordinate {
        switch (from, to) {
        case _ where from == to:
            return point
        // GCJ-02 and BD-09 are related by pure math, wherever the point is.
        case (.gcj02, .bd09):
            return BD09.fromGCJ02(point)
        case (.bd09, .gcj02):
            return BD09.toGCJ02(point)
        default:
            return fromWGS84(toWGS84(point, from: from), to: to)
        }
    }

    /// Converts `point` to WGS-84. A GCJ-02 point is shifted back only when the WGS-84 result
    /// lies where GCJ-02 is used; otherwise the datums coincide and the point is returned as is.
    public func toWGS84(_ point: Coordinate, from: Datum) -> Coordinate {
        switch from {
        case .wgs84:
            return point
        case .gcj02:
            return shiftedBack(point)?.wgs84 ?? point
        case .bd09:
            return toWGS84(BD09.toGCJ02(point), from: .gcj02)
        }
    }

    /// ``toWGS84(_:from:)`` with the region of the point it returns, classified once: a GCJ-02 point shifted back
    /// keeps the answer that decided the shift.
    public func toWGS84Classified(_ point: Coordinate, from: Datum) -> (wgs84: Coordinate, answer: RegionAnswer) {
        switch from {
        case .wgs84:
            return (point, classifier.classify(point))
        case .gcj02:
            return shiftedBack(point) ?? (point, classifier.classify(point))
        case .bd09:
            return toWGS84Classified(BD09.toGCJ02(point), from: .gcj02)
        }
    }

    /// A GCJ-02 point shifted back to WGS-84, with the answer for where it lands, when that is where GCJ-02 is
    /// used; nil when it is not, and the datums coincide there.
    public func shiftedBack(_ point: Coordinate) -> (wgs84: Coordinate, answer: RegionAnswer)? {
        let candidate = GCJ02.toWGS84(point)
        let answer = classifier.classify(candidate)
        return answer.region.usesGCJ02 ? (candidate, answer) : nil
    }

    /// Converts a WGS-84 point to `datum`. The GCJ-02 offset applies only when the point lies
    /// where GCJ-02 is used.
    public func fromWGS84(_ point: Coordinate, to datum: Datum) -> Coordinate {
        switch datum {
        case .wgs84:
            return point
        case .gcj02:
            return classifier.classify(point).region.usesGCJ02 ? GCJ02.fromWGS84(point) : point
        case .bd09:
            return BD09.fromGCJ02(fromWGS84(point, to: .gcj02))
        }
    }
}

extension RegionClassifying {
    /// Classifies a point given in any datum: it is converted to WGS-84 first.
    public func classify(_ point: Coordinate, datum: Datum) -> RegionAnswer {
        DatumConverter(classifier: self).toWGS84Classified(point, from: datum).answer
    }
}
