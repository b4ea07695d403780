/// A stream's name with its hash, computed once: a batch's streams are told apart by it (``AppendPlan/Streams``) and
/// their heads looked up by it among the hundreds of thousands a planner knows (``KnownStreamHeads``). Two keys are
/// compared by their hashes first, so a lookup reads the text of no name but its own: in a large table, comparing
/// the name with each other one on its way took a cache miss each.
struct StreamKey: Hashable, Sendable {
    let name: String
    private let hash: Int

    init(_ name: String) {
        self.name = name
        hash = name.hashValue
    }

    static func == (a: StreamKey, b: StreamKey) -> Bool { a.hash == b.hash && a.name == b.name }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
