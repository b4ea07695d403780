import Foundation

/// The values a reader needs from a JSON document, named by their paths of member names: reading with a shape
/// keeps only those values and checks and skips everything else, for a reader that takes a few fields of a larger
/// document. No tree of the whole document is built.
public struct JSONShape: Sendable {
    /// The member names wanted at one level of objects. A class, so that the reader holds one reference to it.
    final class Level: Sendable {
        /// Every name in UTF-8, one after the other, and where each one lies: compared without making strings.
        let names: [UInt8]
        let ranges: [Range<Int>]
        /// Per name: where its value goes when a path ends at it.
        let slots: [Int?]
        /// Per name: the level of the members below it when paths go on through it.
        let children: [Int?]

        init(_ level: LevelBuilder) {
            (names, ranges, slots, children) = (level.names, level.ranges, level.slots, level.children)
        }

        /// The index of `name` at this level.
        func find(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
            Self.find(name, names: names, ranges: ranges)
        }

        static func find(_ name: UnsafeBufferPointer<UInt8>, names: [UInt8], ranges: [Range<Int>]) -> Int? {
            names.withUnsafeBufferPointer { names in
                for (index, range) in ranges.enumerated() where range.count == name.count {
                    if name.isEmpty || memcmp(names.baseAddress! + range.lowerBound, name.baseAddress!, name.count) == 0 {
                        return index
                    }
                }
                return nil
            }
        }
    }

    struct LevelBuilder {
        var names: [UInt8] = []
        var ranges: [Range<Int>] = []
        var slots: [Int?] = []
        var children: [Int?] = []

        func find(_ name: [UInt8]) -> Int? {
            name.withUnsafeBufferPointer { Level.find($0, names: names, ranges: ranges) }
        }

        mutating func add(_ name: [UInt8]) -> Int {
            let start = names.count
            names.append(contentsOf: name)
            ranges.append(start..<names.count)
            slots.append(nil)
            children.append(nil)
            return ranges.count - 1
        }
    }

    /// Level 0 is the document's top object.
    let levels: [Level]
    public let paths: [[String]]

    /// - Parameter paths: each value wanted, as the member names that lead to it from the top object. A path that
    ///   others go on from reads as an empty object when it is there, so that its presence can be told.
    public init(paths: [[String]]) {
        precondition(paths.allSatisfy { !$0.isEmpty }, "a JSON shape path names at least one member")
        self.paths = paths
        var levels = [LevelBuilder()]
        for (slot, path) in paths.enumerated() {
            var level = 0
            for (depth, name) in path.enumerated() {
                let name = Array(name.utf8)
                let member = levels[level].find(name) ?? levels[level].add(name)
                if depth == path.count - 1 {
                    levels[level].slots[member] = slot
                } else if let child = levels[level].children[member] {
                    level = child
                } else {
                    levels.append(LevelBuilder())
                    levels[level].children[member] = levels.count - 1
                    level = levels.count - 1
                }
            }
        }
        self.levels = levels.map(Level.init)
    }

    /// The values at ``paths``, in their order; nil where the document has none.
    /// - Throws: `JSONValueError.malformed` as ``JSONValue/init(parsing:knownNames:)`` does, for any part of the text.
    public func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [JSONValue?] {
        try JSONParser.read(bytes, shape: self)
    }
}
