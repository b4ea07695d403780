import Foundation

/// The objects of a record format: for each kind of object, its member names, and which members hold an object of
/// another kind. A document is read against it straight into a ``JSONRecord``: a value per member the format names,
/// as a kind, a number and a span of the input, without a tree and without a `String` per value.
///
/// What the reader and the writer look at for every member is kept in buffers the format allocates once and never
/// changes (hence `@unchecked Sendable`), read through ``Object``s of plain values: taken from arrays of a class, each
/// read counted a reference to the array and gave it back, on a format every thread shares.
public final class JSONRecordFormat: @unchecked Sendable {
    /// One kind of object of the format, as the reader and the writer see it: views of the format's buffers, valid
    /// while the format lives.
    struct Object {
        /// Per member: the kind of object it holds, when it holds one of the format.
        let children: UnsafeBufferPointer<Int?>
        /// The members in canonical order (names in code point order), as canonical JSON writes them.
        let canonicalOrder: UnsafeBufferPointer<Int>
        /// Per name of the format (``JSONRecordFormat/names``'s places): its member here, -1 when it has none.
        let members: UnsafeBufferPointer<Int>
        /// Where the object's values start in a record's values.
        let first: Int
        /// Per member, `"name":` as canonical JSON writes it, one after another in `quotedNames`.
        let quotedNames: UnsafeBufferPointer<UInt8>
        let quotedRanges: UnsafeBufferPointer<Range<Int>>

        /// Member `member`'s `"name":`.
        func quotedName(_ member: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: quotedNames[quotedRanges[member]])
        }

        /// The member named by the UTF-8 `text`; nil when the object has none of that name.
        func member(named text: UnsafeBufferPointer<UInt8>, in names: KnownNames) -> Int? {
            guard let place = names.place(of: text, head: JSONObject.head(text)), members[place] >= 0 else { return nil }
            return members[place]
        }
    }

    let objects: UnsafeBufferPointer<Object>
    /// Per kind of object, its members' names, in the order given: for errors and ``JSONRecord/names(of:)``.
    let memberNames: [[String]]
    let names: KnownNames
    let valueCount: Int

    /// - Parameter objects: per kind of object, its members: a name, and the kind of object the member holds when it
    ///   holds one of the format. Kind 0 is the document's top object; every other kind is held by one member alone.
    public init(objects: [[(name: String, object: Int?)]]) {
        let allNames = KnownNames(objects.flatMap { $0.map(\.name) })
        var first = 0
        var built: [Object] = []
        for members in objects {
            precondition(members.count <= 64, "a JSON record's object has at most 64 members")
            precondition(members.allSatisfy { !$0.name.isEmpty }, "a JSON record's members have names")
            var places = Array(repeating: -1, count: allNames.given.count)
            for (member, entry) in members.enumerated() {
                places[allNames.given.firstIndex { $0.utf8.elementsEqual(entry.name.utf8) }!] = member
            }
            let order = members.indices.sorted { JSONObject.precedes(members[$0].name, members[$1].name) }
            var quoted: [UInt8] = []
            var ranges: [Range<Int>] = []
            for member in members {
                let start = quoted.count
                JSONValue.writeString(member.name, into: &quoted)
                quoted.append(UInt8(ascii: ":"))
                ranges.append(start..<quoted.count)
            }
            built.append(Object(
                children: UnsafeBufferPointer(copying: members.map(\.object)), canonicalOrder: UnsafeBufferPointer(copying: order),
                members: UnsafeBufferPointer(copying: places), first: first, quotedNames: UnsafeBufferPointer(copying: quoted),
                quotedRanges: UnsafeBufferPointer(copying: ranges)))
            first += members.count
        }
        let held = objects.flatMap { $0.compactMap(\.object) }
        precondition(Set(held).count == held.count && !held.contains(0), "each kind of object is held by one member")
        self.objects = UnsafeBufferPointer(copying: built)
        memberNames = objects.map { $0.map(\.name) }
        names = allNames
        valueCount = first
    }

    deinit {
        // The buffers are the format's own (``UnsafeBufferPointer/init(copying:)``).
        for object in objects {
            object.children.deallocate()
            object.canonicalOrder.deallocate()
            object.members.deallocate()
            object.quotedNames.deallocate()
            object.quotedRanges.deallocate()
        }
        objects.deallocate()
    }

    /// Reads `data` against the format and gives `body` the record, or why the bytes are not JSON (as
    /// ``JSONValue/init(parsing:knownNames:)`` says it, for any part of the text). The record reads its strings from
    /// `data`: it is valid only inside `body`.
    public func withRecord<Result>(of data: Data, _ body: (Swift.Result<JSONRecord, JSONValueError>) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = JSONParser(bytes: bytes)
            let record = JSONRecord(format: self, bytes: bytes)
            do {
                try parser.readRecord(into: record)
            } catch let error as JSONValueError {
                return try body(.failure(error))
            } catch {
                return try body(.failure(.malformed("\(error)")))
            }
            return try body(.success(record))
        }
    }
}

/// A document read against a ``JSONRecordFormat``: per member the format names, its value's kind, its number and
/// where it lies in the input. Members the format does not name are checked as JSON and kept by name only.
/// A class, so that the objects a reader hands around share one record rather than copy it; valid only inside
/// ``JSONRecordFormat/withRecord(of:_:)``'s body.
public final class JSONRecord {
    /// One member's value.
    public struct Value: Sendable {
        public enum Kind: UInt8, Sendable {
            case absent, null, bool, number, string, array, object

            /// As ``JSONValue/typeName`` names it.
            public var typeName: String {
                switch self {
                case .absent, .null: "null"
                case .bool: "boolean"
                case .number: "number"
                case .string: "string"
                case .array: "array"
                case .object: "object"
                }
            }
        }

        public var kind: Kind = .absent
        /// For a boolean, its value.
        public var bool = false
        /// Whether a string holds an escape, and so is not its bytes in the input.
        var escaped = false
        /// For a number, its value.
        public var number = 0.0
        /// Where the value lies in the input, a string's quotes included.
        var start = 0
        var end = 0

        /// Absent, or JSON null, which the formats read here take as absent.
        public var isAbsent: Bool { kind == .absent || kind == .null }
    }

    public let format: JSONRecordFormat
    let bytes: UnsafeBufferPointer<UInt8>
    /// A value per member of the format, by kind of object, in the order ``JSONRecordFormat/Object/first`` gives.
    let values: UnsafeMutableBufferPointer<Value>
    /// The kind of the document's value: its members are read only when it is an object.
    public internal(set) var documentKind: Value.Kind = .absent
    /// The members the format does not name, in input order: the kind of object they are in, and their name.
    public internal(set) var unknownMembers: [(object: Int, name: String)] = []

    init(format: JSONRecordFormat, bytes: UnsafeBufferPointer<UInt8>) {
        self.format = format
        self.bytes = bytes
        values = .allocate(capacity: format.valueCount)
        values.initialize(repeating: Value())
    }

    deinit {
        values.deallocate()
    }

    /// The value of member `member` of the object of kind `object`.
    public subscript(object: Int, member: Int) -> Value {
        values[format.objects[object].first + member]
    }

    /// The names of the members of the object of kind `object`, in the order given to the format.
    public func names(of object: Int) -> [String] {
        format.memberNames[object]
    }

    /// The members given in the object of kind `object`, JSON null included: bit `n` for member `n`.
    public func givenMembers(of object: Int) -> UInt64 {
        let first = format.objects[object].first
        var given: UInt64 = 0
        for member in 0..<format.memberNames[object].count where values[first + member].kind != .absent {
            given |= 1 << member
        }
        return given
    }

    /// A string value's text.
    public func string(_ value: Value) -> String {
        precondition(value.kind == .string)
        let quoted = UnsafeBufferPointer(rebasing: bytes[value.start..<value.end])
        guard value.escaped else { return String(decoding: UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast()), as: UTF8.self) }
        var parser = JSONParser(bytes: quoted)
        // Read once already, so it reads again.
        return (try? parser.parseString()) ?? ""
    }

    /// A string value's UTF-8, read in place; nil when the string holds an escape, and so is not its bytes in the input.
    public func withUnescapedBytes<R>(of value: Value, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        precondition(value.kind == .string)
        guard !value.escaped else { return nil }
        return body(UnsafeBufferPointer(rebasing: bytes[value.start + 1..<value.end - 1]))
    }

    /// A number value with its text, when the text is canonical as it came (and so is the number's canonical text).
    public func canonicalNumber(_ value: Value) -> CanonicalNumber? {
        guard value.kind == .number else { return nil }
        let span = UnsafeBufferPointer(rebasing: bytes[value.start..<value.end])
        return JSONParser.isCanonical(number: span) ? CanonicalNumber(value: value.number, text: span) : nil
    }

    /// The canonical JSON bytes (``JSONValue/canonicalData()``) of the object of kind `object`, written from the
    /// input's spans in the order the format fixes, without sorting and without a tree: strings without escapes and
    /// numbers already canonical as they came.
    /// - Parameter changing: members of that object to write otherwise: a new string, or nil to leave the member out.
    /// - Parameter out: where the bytes go, replacing what it held.
    public func writeCanonical(
        of object: Int = 0, changing changes: [(member: Int, value: String?)] = [], into out: inout CanonicalBytes
    ) {
        out.buffer.truncate(to: 0)
        writeCanonical(object, changing: changes, into: &out.buffer)
    }

    private func writeCanonical(_ kind: Int, changing changes: [(member: Int, value: String?)], into out: inout ByteBuffer) {
        let object = format.objects[kind]
        out.append(UInt8(ascii: "{"))
        var first = true
        for member in object.canonicalOrder {
            let value = values[object.first + member]
            guard value.kind != .absent else { continue }
            var replacement: String??
            for change in changes where change.member == member { replacement = change.value }
            if case .some(.none) = replacement { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(object.quotedName(member))
            if let replacement, let text = replacement {
                write(string: text, into: &out)
                continue
            }
            let span = UnsafeBufferPointer(rebasing: bytes[value.start..<value.end])
            switch value.kind {
            case .absent, .null:
                out.append("null")
            case .bool:
                out.append(value.bool ? "true" : "false")
            case .string where !value.escaped:
                out.append(span)
            case .string:
                write(string: string(value), into: &out)
            case .number where JSONParser.isCanonical(number: span):
                out.append(span)
            case .number:
                JSONValue.withCanonicalNumber(value.number) { out.append($0) }
            case .object where object.children[member] != nil:
                writeCanonical(object.children[member]!, changing: [], into: &out)
            case .object, .array:
                // Not of the format: read as any JSON is (it was read once already, so it reads again).
                var text: [UInt8] = []
                if let parsed = try? JSONParser.parse(Data(buffer: span)) { text = Array(parsed.canonicalData()) }
                out.append(text)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    private func write(string: String, into out: inout ByteBuffer) {
        var text: [UInt8] = []
        JSONValue.writeString(string, into: &text)
        out.append(text)
    }
}
