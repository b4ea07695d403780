/// The ids of merchants, terminals, visits and enterprises: 1–64 characters of `[A-Za-z0-9_.:-]`, not `.` or `..`, the rule
/// submissions are validated by, for readers that take an id from elsewhere (a URL path).
public enum EntityID {
    public static func isValid(_ text: String) -> Bool {
        FieldChecker.isValidId(text)
    }
}
