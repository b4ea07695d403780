import Foundation
import LocalPostgres
import Testing

@Suite("LocalCluster: the private cluster")
struct LocalClusterTests {
    @Test("each role's URL names the socket inside the cluster's folder, the port, the database and the role")
    func urls() {
        let cluster = LocalCluster(folder: URL(fileURLWithPath: "/srv/ledger/../private"), port: 5433)
        #expect(cluster.folder.path == "/srv/private")
        #expect(cluster.url(as: .app) == "postgresql:///geoledger?host=/srv/private/socket&port=5433&user=geoledger_app")
        #expect(cluster.url(as: .owner) == "postgresql:///geoledger?host=/srv/private/socket&port=5433&user=geoledger_owner")
        #expect(cluster.url(as: .superuser) == "postgresql:///geoledger?host=/srv/private/socket&port=5433&user=postgres")
        #expect(cluster.url() == cluster.url(as: .app))
    }

    @Test("a folder without a cluster is not initialised, and stopping it does nothing and creates nothing")
    func notInitialised() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-\(UUID().uuidString)")
        let cluster = LocalCluster(folder: folder)
        #expect(try cluster.state() == .notInitialised)
        try cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
