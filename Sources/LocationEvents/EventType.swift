/// The event types of DESIGN.md, by the name used in the submission's `type` field and in the store.
public enum EventType: String, Sendable, Hashable, Codable, CaseIterable {
    case merchantAddressFixed = "MerchantAddressFixed"
    case enterpriseAddressFixed = "EnterpriseAddressFixed"
    case terminalBound = "TerminalBound"
    case terminalUnbound = "TerminalUnbound"
    case terminalLocated = "TerminalLocated"
    case visitRecorded = "VisitRecorded"
    case locationFailed = "LocationFailed"
}
