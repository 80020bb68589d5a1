/// One session with something of every kind a timeline shows, for the report's and the
/// trace export's tests and for the browser check: each way a registration ends, initial,
/// skipped, nested, off-main and slow deliveries, a scope, a gap, a removal of nothing, a
/// typo'd key, and journal text that is hostile to HTML and JSON (markup, quotes,
/// `</script>`, control characters, U+2028) in the label, a type name, a function name
/// and values.
///
/// Times are consistent with what the registry records: 1 ms per event, a delivery
/// stamped when its callback returns, so a callback's nested events and its slow run lie
/// inside its duration. The events, by seq:
///
/// ```
///  1 r1 FloatingWindow#2 registers on Player#1.isPlayingChanged (single slot)
///  2-5   two posts reach r1
///  6 r2 AppDelegate#10 registers on *.UIApplicationDidBecomeActive;  7-8 a post reaches it
///  9 r3 StretchyHeader#5 (new,onlyWhenChanged), 10 r4 ListScreen#4: ScrollView#6.contentOffset
/// 11-13  a post reaches r3 and r4
/// 14-16  a change to the same value: r3 skips it (15), r4 gets it (16)
/// 17 r5 VideoScreen#3 replaces r1;  18-21 two posts reach r5
/// 22 scope 1 "VideoScreen visible" begins
/// 23 r6 VideoScreen#3 registers on Toolbar<script>…#9.isVisible, declared for scope 1
/// 24-25  a post with hostile values reaches r6
/// 26 r7 ProgressBar#8 registers on Uploader#7.progress (main queue, initial); 27 initial delivery
/// 28-31  a post reaches r7, whose callback (2.5 ms) posts isVisible (29), delivered to r6 (30)
/// 32-33  on thread 2, a post reaches r7 off the main thread
/// 34-35  a post reaches r7 after 30 ms (slow; the clock jumps 30 ms before 35)
/// 36 scope 1 ends (r6 still registered)
/// 37 r3's token is released;  38 StretchyHeader.swift:88 removes r3 again (nothing there)
/// 39 r2 removed explicitly;  40 a post on *.UIApplicationDidBecomeActive reaches nobody
/// 41 ProgressBar#8 deallocated: r7 removed (ownerDeallocated)
/// 42 gap: 3 events dropped
/// 43 r8 ListScreen#4 replaces r5;  44 r9 ListScreen#4 registers on ScrollView#6.contentOfset (typo)
/// 45-46  a post on isVisible reaches r6 after its scope ended
/// ```
/// Live at the end: r4, r6, r8, r9.
package enum ShowcaseScenario {
    /// The session's label.
    package static let label = "checkout \"A&B\" <b>not bold</b>"
    /// A type name with markup in it.
    package static let hostileType = "Toolbar<script>alert(1)</script>"
    /// A function name that tries to close an attribute.
    package static let hostileFunction = "\"><img src=x onerror=alert(2)>"
    /// An old value that tries to close the report's data script.
    package static let hostileOld = "</script><script>alert(\"x\")</script>"
    /// A new value with a line break, U+2028 and an escape sequence.
    package static let hostileNew = "line1\nline2\u{2028}\u{1B}[31mred"

    /// Writes a journal at `path` (replacing any file) holding the showcase as session 1.
    package static func write(to path: String) throws {
        let fixture = try JournalFixture(path: path)
        try record(try fixture.session(label: label, process: "ShowcaseApp"))
        try fixture.finish()
    }

    /// Records the showcase into `s`.
    package static func record(_ s: FixtureSession) throws {
        let player = try s.object("Player")
        let floating = try s.object("FloatingWindow")
        let video = try s.object("VideoScreen")
        let list = try s.object("ListScreen")
        let header = try s.object("StretchyHeader")
        let scroll = try s.object("ScrollView")
        let uploader = try s.object("Uploader")
        let bar = try s.object("ProgressBar")
        let toolbar = try s.object(hostileType)
        let app = try s.object("AppDelegate")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        let offset = try s.channel(scroll, "contentOffset")
        let progress = try s.channel(uploader, "progress")
        let visible = try s.channel(toolbar, "isVisible")
        let active = try s.channel(0, "UIApplicationDidBecomeActive")
        let typo = try s.channel(scroll, "contentOfset")

        let r1 = try s.register(slot, owner: floating, at: "FloatingWindow.swift:31", function: "viewDidLoad()")
        try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
        try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
        let r2 = try s.register(active, owner: app, at: "AppDelegate.swift:12", function: "application(_:didFinishLaunching:)")
        try s.post(active, at: "Lifecycle.swift:8")
        let r3 = try s.register(
            offset, owner: header, at: "StretchyHeader.swift:20", options: "new,onlyWhenChanged", function: "didMoveToSuperview()"
        )
        let r4 = try s.register(offset, owner: list, at: "ListScreen.swift:44", function: hostileFunction)
        try s.post(offset, old: "(0.0, 0.0)", new: "(0.0, 12.5)", at: "ScrollView.swift:90")
        try s.change(offset, old: "(0.0, 12.5)", new: "(0.0, 12.5)", at: "ScrollView.swift:90")
        try s.skip(r3)
        try s.deliver(r4)
        _ = try s.register(slot, owner: video, at: "VideoScreen.swift:20", function: "viewWillAppear(_:)")
        _ = r1
        try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
        try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
        let scope = try s.beginScope("VideoScreen visible")
        let r6 = try s.register(visible, owner: video, at: "VideoScreen.swift:57", scope: scope, function: "viewWillAppear(_:)")
        try s.post(visible, old: hostileOld, new: hostileNew, at: "Toolbar.swift:5")
        let r7 = try s.register(
            progress, owner: bar, at: "ProgressBar.swift:15", options: "initial,new", queue: "com.apple.main-thread",
            expectsMain: true, function: "bind(to:)"
        )
        try s.deliver(r7, initial: "0.0")
        try s.post(progress, old: "0.1", new: "0.5", at: "Uploader.swift:70", duration: 2_500_000) { _ in
            try s.post(visible, old: "false", new: "true", at: "ProgressBar.swift:33")
        }
        try s.inThread(2) {
            try s.post(progress, old: "0.5", new: "0.7", at: "Uploader.swift:70")
        }
        try s.change(progress, old: "0.7", new: "0.9", at: "Uploader.swift:70")
        s.advance(by: 30_000_000)
        try s.deliver(r7, duration: 30_000_000)
        try s.endScope(scope)
        try s.remove(r3, reason: .tokenReleased)
        try s.removeUnregistered(at: "StretchyHeader.swift:88", channel: offset, registration: r3, owner: header)
        try s.remove(r2, reason: .explicit, at: "AppDelegate.swift:30")
        try s.post(active, at: "Lifecycle.swift:8")
        try s.deallocate(bar)
        try s.gap(dropped: 3)
        _ = try s.register(slot, owner: list, at: "ListScreen.swift:12", function: "viewDidLoad()")
        _ = try s.register(typo, owner: list, at: "ListScreen.swift:60", function: "viewDidLoad()")
        try s.post(visible, old: "true", new: "false", at: "Toolbar.swift:5")
        _ = (r4, r6)
    }
}
