import LocationEvents

/// SQL expressions that read what the history tables do not copy out of an event: the GCJ-02 position from its
/// metadata, and the address, user and error message as the client sent them. Read for the few rows a query
/// answers, by the event's position (the log's key), never to filter or sort.
enum StoredFields {
    /// The text of a metadata member, e.g. `e.metadata #>> '{fix,gcj02,lat}'`.
    /// - Parameter metadata: the `json` column or expression holding the metadata.
    static func metadata(_ member: StoredMetadata.Member, of metadata: String) -> String {
        "\(metadata) #>> '{\(member.path.joined(separator: ","))}'"
    }

    /// A metadata member read as a number.
    static func metadataNumber(_ member: StoredMetadata.Member, of metadata: String) -> String {
        "(\(self.metadata(member, of: metadata)))::float8"
    }

    /// The address a fix was sent with, as one text: its `formatted` member, else its parts from the country down
    /// to the point of interest, with spaces between; NULL without an address.
    /// - Parameter data: the `json` column or expression holding the submission.
    static func addressText(of data: String) -> String {
        let address = "(\(data) #> '{fix,address}')"
        let parts = ["country", "province", "city", "district", "street", "streetNumber", "poiName"]
            .map { "nullif(\(address) ->> '\($0)', '')" }.joined(separator: ", ")
        return "coalesce(nullif(\(address) ->> 'formatted', ''), nullif(concat_ws(' ', \(parts)), ''))"
    }

    /// The `actor.userId` of the submission.
    static func userId(of data: String) -> String {
        "\(data) #>> '{actor,userId}'"
    }

    /// The provider's message of a failed attempt, as the app sent it.
    static func errorMessage(of data: String) -> String {
        "\(data) ->> 'errorMessage'"
    }
}
