/// The two forms of COPY data: text, escaped values in their PostgreSQL text form; binary, each value in its type's
/// binary form, which the server stores without parsing (for rows of known column types, written many at a time).
public enum CopyFormat: Sendable, Equatable {
    case text
    case binary
}
