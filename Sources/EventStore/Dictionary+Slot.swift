extension Dictionary {
    /// The value of `key`, or `value` after storing it as the key's when the key has none: the key hashed once either
    /// way, where a lookup and then a store hash it twice.
    mutating func value(of key: Key, storingIfAbsent value: Value) -> Value {
        func read(_ stored: inout Value) -> Value { stored }
        return read(&self[key, default: value])
    }
}
