/// Member names a reader expects (``JSONRecordFormat``), found by the bytes of a name spelled with exactly these bytes
/// (no escape), without making a `String` of it: making a `String` of a name cost more than reading the name.
///
/// The table is kept in buffers allocated once and never changed (hence `@unchecked Sendable`): read from arrays of a
/// class, every lookup counted a reference to each array and gave it back.
final class KnownNames: @unchecked Sendable {
    /// A place in an open-addressed table (linear probing): a name's ``JSONObject/head(_:)``, its UTF-8 length (0 for
    /// an empty slot), and where its bytes start in `bytes`.
    private struct Slot {
        var head: UInt64 = 0
        var count = 0
        var start = 0
    }

    private let slots: UnsafeBufferPointer<Slot>
    /// The place of each slot's name among the names given (the first of each given twice), -1 for an empty slot.
    private let places: UnsafeBufferPointer<Int>
    /// The names given, the first of each given twice, in order.
    let given: [String]
    /// The names' UTF-8, one after another.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// There are `mask + 1` slots, a power of two, at least twice as many as there are names.
    private let mask: Int

    init(_ given: some Sequence<String>) {
        var unique: [String] = []
        // The same name by its code points, not by String's canonical equivalence.
        for name in given where !name.isEmpty && !unique.contains(where: { $0.utf8.elementsEqual(name.utf8) }) { unique.append(name) }
        var size = 16
        while size < 2 * unique.count { size *= 2 }
        var slots = Array(repeating: Slot(), count: size)
        var places = Array(repeating: -1, count: size)
        var bytes: [UInt8] = []
        for (place, name) in unique.enumerated() {
            let head = JSONObject.head(name)
            let count = name.utf8.count
            var slot = Self.slot(head: head, count: count) & (size - 1)
            while slots[slot].count != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Slot(head: head, count: count, start: bytes.count)
            places[slot] = place
            bytes.append(contentsOf: name.utf8)
        }
        self.slots = UnsafeBufferPointer(copying: slots)
        self.places = UnsafeBufferPointer(copying: places)
        self.given = unique
        self.bytes = UnsafeBufferPointer(copying: bytes)
        mask = size - 1
    }

    deinit {
        slots.deallocate()
        places.deallocate()
        bytes.deallocate()
    }

    private static func slot(head: UInt64, count: Int) -> Int {
        // Fibonacci hashing: the multiplication spreads the name's bytes into the high bits, which are kept.
        Int(truncatingIfNeeded: ((head ^ UInt64(count)) &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }

    /// The place among the names given (``given``) of the known name whose UTF-8 is `text`; nil when there is none.
    func place(of text: UnsafeBufferPointer<UInt8>, head: UInt64) -> Int? {
        slot(of: text, head: head).map { places[$0] }
    }

    private func slot(of text: UnsafeBufferPointer<UInt8>, head: UInt64) -> Int? {
        var index = Self.slot(head: head, count: text.count) & mask
        while true {
            let slot = slots[index]
            if slot.count == 0 { return nil }
            if slot.count == text.count, slot.head == head, matches(text, from: slot.start) { return index }
            index = (index + 1) & mask
        }
    }

    /// Whether the bytes after the first 8 (which the head holds) are those of the name starting at `start`.
    private func matches(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var offset = 8
        while offset < text.count {
            if bytes[start + offset] != text[offset] { return false }
            offset += 1
        }
        return true
    }
}

extension UnsafeBufferPointer {
    /// A buffer of its own holding a copy of `elements`, for a table built once and read for every document
    /// (``KnownNames``, ``JSONRecordFormat``); its owner frees it with `deallocate()`.
    init(copying elements: [Element]) {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        self.init(buffer)
    }
}
