import JournalAnalysis

/// A finding a buggy app must get: its code and severity, and the key evidence: owner types
/// (`ChatsTab`, ids left out) and call sites (marker names, see `SiteMarkers`) the finding
/// must name among others.
struct ExpectedFinding: CustomStringConvertible {
    var code: String
    var severity: Severity
    var owners: [String] = []
    var sites: [String] = []

    var description: String {
        "\(severity.rawValue)[\(code)] owners \(owners) sites \(sites.map(SiteMarkers.site))"
    }

    func matches(_ finding: Finding) -> Bool {
        finding.rule.code == code && finding.severity == severity
            && Set(owners).isSubset(of: finding.owners.map(ownerType))
            && Set(sites.map(SiteMarkers.site)).isSubset(of: finding.callSites)
    }
}

/// `ChatsTab#2` → `ChatsTab`.
func ownerType(_ owner: String) -> String {
    guard let hash = owner.lastIndex(of: "#") else { return owner }
    return String(owner[..<hash])
}

/// A finding as a failed expectation prints it.
func describe(_ finding: Finding) -> String {
    "\(finding.severity.rawValue)[\(finding.rule.code)] \(finding.message) owners \(finding.owners) sites \(finding.callSites)"
}

/// What each buggy app must be diagnosed with, under every main loop it runs under. Its
/// findings at warning or above must be exactly these (infos listed must be present; other
/// infos are allowed). Every correct twin must have no finding at warning or above.
let expectedFindings: [String: [ExpectedFinding]] = [
    "chat-unread-badge": [
        // Registered three times: the second and the third each duplicate the first.
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["ChatsTab"], sites: ["badge-appear"]),
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["ChatsTab"], sites: ["badge-appear"]),
    ],
    "comments-keyboard": [
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["CommentsScreen"], sites: ["keyboard-show"]),
    ],
    "profile-view-model": [
        ExpectedFinding(code: "OJ004", severity: .warning, owners: ["ProfileViewModel"], sites: ["avatar"]),
    ],
    "search-token-discarded": [
        ExpectedFinding(code: "OJ012", severity: .info, owners: ["SearchScreen"], sites: ["query"]),
    ],
    "map-strong-capture": [
        ExpectedFinding(code: "OJ004", severity: .warning, owners: ["RunMapScreen"], sites: ["location-strong"]),
    ],
    "podcast-player-item": [
        ExpectedFinding(code: "OJ013", severity: .info, owners: ["NowPlayingScreen"], sites: ["status"]),
    ],
    "conversation-reload": [
        ExpectedFinding(code: "OJ013", severity: .info, owners: ["ConversationHeader"], sites: ["title"]),
    ],
    "reachability-reassign": [
        // The sync callback replaces the banner's; re-running start() then replaces the sync's.
        ExpectedFinding(code: "OJ001", severity: .error, owners: ["AppCoordinator"], sites: ["banner", "sync"]),
        ExpectedFinding(code: "OJ001", severity: .error, owners: ["AppCoordinator"], sites: ["sync", "banner"]),
    ],
    "push-token-sdks": [
        ExpectedFinding(code: "OJ001", severity: .error, owners: ["AnalyticsSDK", "MessagingSDK"], sites: ["analytics", "messaging"]),
    ],
    "keyboard-hand-over": [
        // The login screen, alive under the modal, never gets the callback back.
        ExpectedFinding(code: "OJ001", severity: .error, owners: ["LoginScreen", "ForgotPasswordScreen"], sites: ["keyboard-load"]),
    ],
    "delivery-map": [
        ExpectedFinding(code: "OJ008", severity: .error, owners: ["TrackingScreen"], sites: ["pin"]),
    ],
    "chat-socket": [
        ExpectedFinding(code: "OJ008", severity: .error, owners: ["MessageList"], sites: ["messages"]),
    ],
    "frame-metrics": [
        ExpectedFinding(code: "OJ010", severity: .warning, owners: ["PerformanceMonitor"], sites: ["sample-main"]),
    ],
    "theme-render": [
        ExpectedFinding(code: "OJ010", severity: .warning, owners: ["NoteList"], sites: ["theme"]),
    ],
    "tip-calculator-sync": [
        // The slider changed again from the text's callback, and the text from the slider's.
        ExpectedFinding(code: "OJ009", severity: .warning, sites: ["text-writes-slider"]),
        ExpectedFinding(code: "OJ009", severity: .warning, sites: ["slider-writes-text"]),
    ],
    "inbox-notification-observer": [
        // The second and the third visit each add a block beside the first visit's.
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["NotificationToken"], sites: ["inbox-add"]),
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["NotificationToken"], sites: ["inbox-add"]),
    ],
    "sync-status-notification": [
        ExpectedFinding(code: "OJ008", severity: .error, owners: ["NotificationToken"], sites: ["sync-label"]),
    ],
    "cart-badge-tracking": [
        ExpectedFinding(code: "OJ015", severity: .warning, owners: ["CartBadge"], sites: ["cart-badge-track"]),
    ],
    "live-score-tracking": [
        ExpectedFinding(code: "OJ016", severity: .warning, owners: ["MatchScreen"], sites: ["score-track"]),
    ],
    "toast-tokens": [
        // One per toast: each token cancelled on hiding, then again on logout.
        ExpectedFinding(code: "OJ003", severity: .warning, owners: ["OfflineToast"], sites: ["logout-cancel"]),
        ExpectedFinding(code: "OJ003", severity: .warning, owners: ["OfflineToast"], sites: ["logout-cancel"]),
    ],
    "settings-key-typo": [
        ExpectedFinding(code: "OJ005", severity: .warning, owners: ["SettingsScreen"], sites: ["reminders"]),
    ],
    "session-expiry-typo": [
        ExpectedFinding(code: "OJ005", severity: .warning, owners: ["AppRouter"], sites: ["expiry"]),
    ],
    "form-keyboard-remove-twice": [
        ExpectedFinding(code: "OJ003", severity: .warning, owners: ["SignUpForm"], sites: ["remove-deinit"]),
    ],
    "checkout-pay-hook": [
        ExpectedFinding(code: "OJ004", severity: .warning, owners: ["CheckoutScreen"], sites: ["pay-hook"]),
    ],
    "stock-ticker": [
        ExpectedFinding(code: "OJ007", severity: .info, sites: ["tick"]),
    ],
    "price-filter": [
        // minPrice is observed but never moved in this session: not a typo of maxPrice.
        ExpectedFinding(code: "OJ005", severity: .warning, owners: ["ResultsList"], sites: ["max-price"]),
    ],
    "photo-thumbnails": [
        ExpectedFinding(code: "OJ010", severity: .warning, owners: ["ThumbnailGrid"], sites: ["decode"]),
    ],
    "download-list": [
        // ep-102 observed twice; the other tasks once each, from the same call site.
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["DownloadsScreen"], sites: ["did-finish"]),
    ],
    "playlist-table": [
        ExpectedFinding(code: "OJ003", severity: .warning, owners: ["PlaylistTable"], sites: ["remove-deinit-all"]),
    ],
    "weather-label-tracking": [
        ExpectedFinding(code: "OJ017", severity: .warning, owners: ["TemperatureLabel"], sites: ["temperature-track"]),
    ],
    "library-reload-two-places": [
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["LibraryScreen"], sites: ["library-init", "library-load"]),
    ],
    "video-end-sender-filter": [
        // The screen's observer filters on the player; the preview's item did not end (no finding).
        ExpectedFinding(code: "OJ018", severity: .warning, owners: ["PlaybackScreen"], sites: ["video-end"]),
    ],
    "playlist-row-tracking": [
        // One rename reached both of the row's armings; both armed again, and the next
        // pair ended only at the session's end.
        ExpectedFinding(code: "OJ002", severity: .warning, owners: ["TrackRow"], sites: ["row-track"]),
    ],
    "driver-heartbeat": [
        ExpectedFinding(code: "OJ007", severity: .info, sites: ["heartbeat"]),
    ],
]
