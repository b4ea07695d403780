import Foundation
import Geo
import JSON

extension SubmissionValidator {
    /// The `fix` member of a submission.
    func fix(_ submission: Members<SubmissionMember>, now: Date, _ checker: inout FieldChecker) -> Fix? {
        guard let value = submission[.fix] else {
            checker.fail("fix", .required, "fix is required")
            return nil
        }
        guard value.kind == .object else {
            checker.fail("fix", .wrongType, "fix must be an object, not \(value.kind.typeName)")
            return nil
        }
        let members = Members<FixMember>(record: checker.record, object: SubmissionFormat.fix)
        let errorsBefore = checker.errors.count
        checker.refuseUnknownMembers(of: SubmissionFormat.fix, at: "fix", in: "a fix")
        let lat = coordinate(members, .lat, what: "latitude", limit: 90, &checker)
        let lon = coordinate(members, .lon, what: "longitude", limit: 180, &checker)
        if lat == 0, lon == 0 {
            checker.fail("fix", .nullIsland, "lat and lon are both 0: a default value, not a position")
        }
        let datum = checker.enumeration(Datum.self, members, .datum, at: "fix", required: false)
        let accuracy = horizontalAccuracy(members, &checker)
        let authorization = checker.enumeration(AccuracyAuthorization.self, members, .accuracyAuthorization, at: "fix", required: false)
        let provider = checker.enumeration(Provider.self, members, .provider, at: "fix", required: true)
        let capturedAt = checker.timestamp(members, .capturedAt, at: "fix", now: now, limits: limits)
        let address = self.address(members, &checker)
        let claimedInRegion = checker.bool(members, .claimedInRegion, at: "fix")

        guard checker.errors.count == errorsBefore, let lat, let lon, let accuracy, let provider, let capturedAt else { return nil }
        return Fix(
            lat: lat, lon: lon, datum: datum, horizontalAccuracy: accuracy, accuracyAuthorization: authorization,
            provider: provider, capturedAt: capturedAt, address: address, claimedInRegion: claimedInRegion)
    }

    private func coordinate(
        _ members: Members<FixMember>, _ member: FixMember, what: String, limit: Double, _ checker: inout FieldChecker
    ) -> Double? {
        guard let value = checker.finiteNumber(members, member, at: "fix", what: what) else { return nil }
        guard (-limit...limit).contains(value) else {
            checker.fail("fix.\(member.name)", .outOfRange, "\(what) must be within -\(Int(limit))..\(Int(limit))")
            return nil
        }
        return value
    }

    private func horizontalAccuracy(_ members: Members<FixMember>, _ checker: inout FieldChecker) -> Double? {
        guard let value = checker.finiteNumber(members, .horizontalAccuracy, at: "fix", what: "horizontalAccuracy") else { return nil }
        if value < 0 {
            checker.fail("fix.horizontalAccuracy", .negativeAccuracy, "a negative horizontalAccuracy means the device had no valid coordinate")
        } else if value == 0 {
            checker.fail("fix.horizontalAccuracy", .zeroAccuracy, "horizontalAccuracy of 0 m is not a real measurement")
        } else if value > limits.maximumAccuracyMetres {
            checker.fail("fix.horizontalAccuracy", .outOfRange, "horizontalAccuracy must be at most \(Int(limits.maximumAccuracyMetres)) m")
        } else {
            return value
        }
        return nil
    }

    private func address(_ fix: Members<FixMember>, _ checker: inout FieldChecker) -> Address? {
        guard let members = checker.object(fix, .address, at: "fix", holding: SubmissionFormat.address, as: AddressMember.self) else {
            return nil
        }
        checker.refuseUnknownMembers(of: SubmissionFormat.address, at: "fix.address", in: "an address")
        // Each part checked in the order messages list them; those the server reads are kept.
        var address = Address()
        let (prefix, limit) = ("fix.address", limits.maximumAddressFieldLength)
        for member in AddressMember.allCases {
            switch member {
            case .province: address.province = checker.string(members, member, at: prefix, required: false, maximumLength: limit)
            case .adcode: address.adcode = checker.string(members, member, at: prefix, required: false, maximumLength: limit)
            case .country, .city, .district, .street, .streetNumber, .poiName, .formatted:
                checker.checkString(members, member, at: prefix, maximumLength: limit)
            }
        }
        if let adcode = address.adcode, !(adcode.utf8.count == 6 && adcode.utf8.allSatisfy { (0x30...0x39).contains($0) }) {
            checker.fail("fix.address.adcode", .invalidAdcode, "adcode must be six digits, such as 310101")
        }
        return address
    }
}
