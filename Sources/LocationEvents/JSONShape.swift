import Foundation

/// The members of a JSON document a reader needs: parsing with a shape builds only those and checks and skips the
/// rest, for a reader that takes a few fields of a larger document (the projections reading stored metadata).
public struct JSONShape: Sendable {
    struct Member {
        let name: String
        /// The members of this member's value to build; nil builds all of it.
        let shape: JSONShape?
    }

    private let members: [Member]
    /// Every member's name in UTF-8, one after the other, and where each one lies: compared without making strings.
    private let names: [UInt8]
    private let ranges: [Range<Int>]

    /// - Parameter members: each wanted member's name, with the shape of its value (nil: all of it).
    public init(_ members: [String: JSONShape?]) {
        self.members = members.map { Member(name: $0.key, shape: $0.value) }
        var names: [UInt8] = []
        ranges = self.members.map { member in
            let start = names.count
            names.append(contentsOf: member.name.utf8)
            return start..<names.count
        }
        self.names = names
    }

    func member(named name: UnsafeBufferPointer<UInt8>) -> Member? {
        let found = names.withUnsafeBufferPointer { names in
            ranges.firstIndex { range in
                range.count == name.count && (name.isEmpty || memcmp(names.baseAddress! + range.lowerBound, name.baseAddress!, name.count) == 0)
            }
        }
        return found.map { members[$0] }
    }
}

extension JSONValue {
    /// Parses JSON text, building only the members `shape` names; the others are checked and skipped.
    /// - Throws: `JSONValueError.malformed` as ``init(parsing:)`` does, for any part of the text.
    public init(parsing bytes: UnsafeBufferPointer<UInt8>, keeping shape: JSONShape) throws {
        self = try JSONParser.parse(bytes, keeping: shape)
    }
}
