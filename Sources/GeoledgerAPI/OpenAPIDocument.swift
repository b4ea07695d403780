import JSON

/// The OpenAPI 3.1 document of the API, built from the same ``APIRoute`` list as the router, so a route cannot be
/// served without being described.
enum OpenAPIDocument {
    static func document(for routes: [APIRoute]) -> JSONValue {
        var paths = JSONObject()
        for route in routes {
            var operations = paths[route.pattern]?.objectValue ?? JSONObject()
            operations[route.method.rawValue.lowercased()] = operation(route)
            paths[route.pattern] = .object(operations)
        }
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
                "securitySchemes": .object(["bearer": .object(["type": .string("http"), "scheme": .string("bearer")])]),
                "schemas": .object(["Error": errorSchema]),
            ]),
        ])
    }

    private static func operation(_ route: APIRoute) -> JSONValue {
        var parameters: [JSONValue] = route.pathParameters.map { name in
            .object(["name": .string(name), "in": .string("path"), "required": .bool(true), "schema": .object(["type": .string("string")])])
        }
        parameters += route.query.map { parameter in
            .object([
                "name": .string(parameter.name), "in": .string("query"), "required": .bool(false),
                "description": .string(parameter.description), "schema": .object(["type": .string(parameter.type)]),
            ])
        }
        var responses = route.responses
        if case .token = route.access {
            responses[401] = responses[401] ?? "No token, or a token not known"
            responses[403] = responses[403] ?? "The token lacks the scope"
            responses[503] = responses[503] ?? "The database cannot be reached; retry after Retry-After seconds"
        }
        var answers = JSONObject()
        for (status, description) in responses.sorted(by: { $0.key < $1.key }) {
            let mediaTypes = status == 200 ? [route.produces] + route.alsoProduces : ["application/json"]
            let schema: JSONValue = status == 200 ? .object([:]) : .object(["$ref": .string("#/components/schemas/Error")])
            var content = JSONObject()
            for mediaType in mediaTypes { content[mediaType] = .object(["schema": schema]) }
            var answer: JSONObject = ["description": .string(description), "content": .object(content)]
            if status == 200, !route.responseHeaders.isEmpty {
                var headers = JSONObject()
                for (name, text) in route.responseHeaders.sorted(by: { $0.key < $1.key }) {
                    headers[name] = .object(["description": .string(text), "schema": .object(["type": .string("string")])])
                }
                answer["headers"] = .object(headers)
            }
            answers[String(status)] = .object(answer)
        }
        var members: JSONObject = [
            "summary": .string(route.summary),
            "operationId": .string(operationId(route)),
            "responses": .object(answers),
        ]
        if !parameters.isEmpty { members["parameters"] = .array(parameters) }
        if !route.accepts.isEmpty {
            var content = JSONObject()
            for type in route.accepts { content[type] = .object(["schema": .object([:])]) }
            members["requestBody"] = .object(["required": .bool(true), "content": .object(content)])
        }
        switch route.access {
        case .token(let scope):
            members["security"] = .array([.object(["bearer": .array([])])])
            members["x-scope"] = .string(scope.rawValue)
        case .open, .loopback:
            members["security"] = .array([])
        }
        return .object(members)
    }

    /// `getV1MerchantsId`: the method and the pattern's words.
    static func operationId(_ route: APIRoute) -> String {
        let words = route.pattern.split { !$0.isLetter && !$0.isNumber }.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        return route.method.rawValue.lowercased() + words.joined()
    }

    private static let errorSchema: JSONValue = .object([
        "type": .string("object"),
        "required": .array([.string("error")]),
        "properties": .object([
            "error": .object([
                "type": .string("object"),
                "required": .array([.string("code"), .string("message")]),
                "properties": .object([
                    "code": .object(["type": .string("string")]), "message": .object(["type": .string("string")]),
                    "field": .object(["type": .string("string")]),
                ]),
            ])
        ]),
    ])
}
