import JSON
import LocationEvents
import Output

/// The OpenAPI 3.1 document of the API, built from the same ``APIRoute`` list as the router, so a route cannot be
/// served without being described, nor a parameter taken, nor an answer given, that the route does not declare.
enum OpenAPIDocument {
    static func document(for routes: [APIRoute], limits: ValidationLimits) -> JSONValue {
        var paths = JSONObject()
        for route in routes {
            var operations = paths[route.pattern]?.objectValue ?? JSONObject()
            operations[route.method.rawValue.lowercased()] = operation(route)
            paths[route.pattern] = .object(operations)
        }
        var schemas = JSONObject()
        for (name, schema) in SubmissionSchemas.components(limits) + AnswerSchemas.components { schemas[name] = schema }
        return .object([
            "openapi": .string("3.1.0"),
            "info": .object([
                "title": .string("Geoledger"),
                "version": .string("1"),
                "description": .string(
                    "Location events of merchants and payment terminals. Errors answer "
                        + #"{"error":{"code":"...","message":"...","field":"..."}}; every answer carries X-Request-Id."#),
            ]),
            "paths": .object(paths),
            "components": .object([
                "securitySchemes": .object([
                    "bearer": .object([
                        "type": .string("http"), "scheme": .string("bearer"),
                        "description": .string(
                            "A token of `geoledger token create --scopes ...`. Scopes: "
                                + TokenScope.allCases.map { "\($0.rawValue) (\(scopeMeaning($0)))" }.joined(separator: ", ")
                                + ". An operation's x-scope names the one it needs; admin holds every scope."),
                    ])
                ]),
                "schemas": .object(schemas),
            ]),
        ])
    }

    static func scopeMeaning(_ scope: TokenScope) -> String {
        switch scope {
        case .ingest: "POST events"
        case .read: "GET under /v1"
        case .admin: "both"
        }
    }

    /// The error answers every route may give: those of its access rule, and those the server gives any request
    /// (malformed HTTP, limits, shutting down).
    static func failures(of route: APIRoute) -> [Int: APIRoute.Failure] {
        var failures = route.failures
        func add(_ status: Int, _ description: String, _ codes: [String]) {
            let known = failures[status]
            guard known?.answer == nil else { return }
            failures[status] = APIRoute.Failure(
                known?.description ?? description, (known?.codes ?? []) + codes.filter { !(known?.codes ?? []).contains($0) })
        }
        if !route.queryNames.isEmpty || !route.pathParameters.isEmpty {
            add(400, "A parameter is malformed or unknown (error.field names it)", ["invalid_parameter"])
        }
        switch route.access {
        case .token:
            add(401, "No token, or a token not known", ["unauthorized"])
            add(403, "The token lacks the scope", ["insufficient_scope"])
            add(503, "The database cannot be reached or has no space left to write, or the projections are behind; retry "
                + "after Retry-After seconds", ["database_unavailable", "database_full", "projections_behind"])
        case .loopback:
            add(403, "Asked from beyond the loopback interface", ["loopback_only"])
        case .open:
            break
        }
        add(400, "The request is not well-formed HTTP", [
            "invalid_path", "invalid_query", "invalid_header", "invalid_request_line", "missing_host", "folded_header",
            "unsupported_transfer_encoding", "ambiguous_length", "invalid_gzip", "incomplete_request",
        ])
        add(408, "The request did not arrive within the request timeout", ["request_timeout"])
        add(429, "The client's address has as many connections open as the server allows one; retry after Retry-After "
            + "seconds, or reuse a connection", ["too_many_connections_from_client"])
        add(503, "The server has as many connections open as it allows; retry after Retry-After seconds",
            ["too_many_connections"])
        add(413, "The body is larger than the server takes", ["body_too_large"])
        add(414, "The target is too long, or has too many parameters", ["uri_too_long", "too_many_parameters"])
        add(415, "The body's Content-Encoding is not gzip", ["unsupported_content_encoding"])
        add(431, "The headers are too large", ["headers_too_large"])
        add(500, "The server failed; the message names the request", ["internal_error", "database_error"])
        add(503, "The server is stopping", ["shutting_down"])
        return failures
    }

    private static func operation(_ route: APIRoute) -> JSONValue {
        let parameters: [JSONValue] = route.pathParameters.map { parameter($0, in: "path") }
            + route.query.map { parameter($0, in: "query") }
        var answers = JSONObject()
        answers["200"] = success(route.success)
        for (status, failure) in failures(of: route) {
            let answer: JSONObject = [
                "description": .string(failure.description),
                "headers": headers(status == 503 ? [retryAfter] : status == 401 ? [wwwAuthenticate] : []),
                "content": .object(["application/json": .object(["schema": failure.answer ?? AnswerSchemas.error(codes: failure.codes)])]),
            ]
            answers[String(status)] = .object(answer)
        }
        var members: JSONObject = [
            "summary": .string(route.summary),
            "operationId": .string(operationId(route)),
            "responses": .object(answers),
        ]
        if !parameters.isEmpty { members["parameters"] = .array(parameters) }
        if !route.body.isEmpty {
            var content = JSONObject()
            for (mediaType, schema) in route.body { content[mediaType] = .object(["schema": schema]) }
            members["requestBody"] = .object(["required": .bool(true), "content": .object(content)])
        }
        switch route.access {
        case .token(let scope):
            members["security"] = .array([.object(["bearer": .array([.string(scope.rawValue)])])])
            members["x-scope"] = .string(scope.rawValue)
        case .open, .loopback:
            members["security"] = .array([])
        }
        return .object(members)
    }

    private static func parameter(_ parameter: APIRoute.Parameter, in location: String) -> JSONValue {
        .object([
            "name": .string(parameter.name), "in": .string(location), "required": .bool(location == "path" || parameter.isRequired),
            "description": .string(parameter.description), "schema": parameter.schema,
        ])
    }

    private static func success(_ success: APIRoute.Success) -> JSONValue {
        var content = JSONObject()
        for (mediaType, schema) in success.content { content[mediaType] = .object(["schema": schema]) }
        return .object([
            "description": .string(success.description),
            "headers": headers(success.headers),
            "content": .object(content),
        ])
    }

    typealias Header = (name: String, description: String, schema: JSONValue)

    static let requestId: Header = ("X-Request-Id", "Names the request in the server's log", Schema.string(minLength: 1))
    static let retryAfter: Header = ("Retry-After", "Seconds to wait before trying again", Schema.string(pattern: "^[0-9]+$"))
    static let wwwAuthenticate: Header = ("WWW-Authenticate", "The scheme: Bearer", Schema.string())

    /// The headers of an answer: X-Request-Id on every one, always there; the others when they apply.
    private static func headers(_ headers: [Header]) -> JSONValue {
        var object = JSONObject()
        for header in [requestId] + headers {
            var members: JSONObject = ["description": .string(header.description), "schema": header.schema]
            if header.name == requestId.name { members["required"] = .bool(true) }
            object[header.name] = .object(members)
        }
        return .object(object)
    }

    /// `getV1MerchantsId`: the method and the pattern's words.
    static func operationId(_ route: APIRoute) -> String {
        let words = route.pattern.split { !$0.isLetter && !$0.isNumber }.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        return route.method.rawValue.lowercased() + words.joined()
    }
}

extension Schema {
    /// The answers of a table in each of `formats`, JSON first: the rows as objects, NDJSON, CSV under a header of
    /// the column names, GeoJSON features of the rows with a position.
    static func table(_ columns: [Column], formats: [Format]) -> [(String, JSONValue)] {
        formats.map { format in
            switch format {
            case .json, .table: ("application/json", array(row(columns)))
            case .ndjson: ("application/x-ndjson", string("a row object per line, as in JSON"))
            case .csv:
                ("text/csv", string("RFC 4180, lines ending in LF; the header: " + columns.map(\.name).joined(separator: ",")
                    + "; missing values empty; counts as name=n, ..."))
            case .geojson: ("application/geo+json", featureCollection(columns))
            }
        }
    }
}
