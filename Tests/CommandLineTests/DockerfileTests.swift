import Foundation
import Testing

/// The Docker image is built on a Swift toolchain the package can be built with: no Docker engine runs where the
/// tests do, so this is the check that the image's build would not fail on the compiler.
@Suite("The Dockerfile and the package")
struct DockerfileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `6.3` of `6.3`, `6.3.1` or `6.3-bookworm`: major and minor.
    static func version(_ text: Substring) -> [Int] {
        Array(text.prefix { $0.isNumber || $0 == "." }.split(separator: ".").prefix(2).compactMap { Int($0) })
    }

    @Test("the image's Swift is at least the package's swift-tools-version")
    func swiftVersions() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let dockerfile = try String(contentsOf: Self.root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let tools = try #require(manifest.firstMatch(of: /swift-tools-version:\s*([0-9.]+)/)).1
        let image = try #require(dockerfile.firstMatch(of: /(?m)^FROM swift:([0-9][0-9.]*)\S*/), "a FROM swift:X.Y line").1
        let (needed, built) = (Self.version(tools), Self.version(image))
        #expect(needed.count == 2 && built.count == 2, "tools \(tools), image \(image)")
        #expect(built.lexicographicallyPrecedes(needed) == false, "the image builds with Swift \(image), the package needs \(tools)")
        // The manifest and the code are written for Swift 6.2 and later.
        #expect(needed.lexicographicallyPrecedes([6, 2]) == false, "swift-tools-version \(tools) is below 6.2, which the code needs")
    }
}
