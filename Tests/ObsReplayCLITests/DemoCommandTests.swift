import Foundation
import JournalFixtures
import Testing
import TestSupport

// `obsreplay demo` end to end: the built binary in a temporary directory. It runs the
// scenarios on its main thread, as a user's `swift run obsreplay demo` does.

/// The demo's text output with call sites' line numbers as `#` (see `FindingShape`).
private func normalized(_ text: String) -> String { FindingShape.normalized(text) }

/// The files in `directory`, sorted.
private func files(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

@Test(.tags(.childProcess)) func demoPrintsTheSessionsTheDiagnosisByScenarioAndWhatToTryNext() throws {
    let directory = try temporaryDirectory()
    let result = try obsreplay(["demo"], in: directory)
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(normalized(result.stdout) == """
        Recorded 10 sessions into obsreplay-demo.sqlite:
          session  1  music-player/buggy         11 events, 3 registrations
          session  2  music-player/fixed         21 events, 3 registrations
          session  3  video-toolbar/buggy        22 events, 2 registrations
          session  4  video-toolbar/fixed        20 events, 2 registrations
          session  5  upload-progress/buggy      10 events, 1 registration
          session  6  upload-progress/fixed      10 events, 1 registration
          session  7  stretchy-header/buggy      17 events, 3 registrations
          session  8  stretchy-header/fixed      14 events, 2 registrations
          session  9  scoreboard-tracking/buggy  2 events, 1 registration
          session 10  scoreboard-tracking/fixed  14 events, 4 registrations
        The same as a picture: obsreplay-demo.html (open it in a browser)

        Diagnosis:

        music-player (Sources/DemoApps/MusicPlayerScenario.swift): a shared player's playing state wanted by a mini-player window, a now-playing screen and a song list
          buggy, session 1: each screen assigns the player's single isPlayingChanged callback: only the last one fires
            error[OJ001] last-callback-wins: 3 owners assigned Player#1.isPlayingChanged; MiniPlayerWindow#2 (MusicPlayerScenario.swift:#) was replaced at seq 2 while alive and missed 4 changes.
                seq 1: MiniPlayerWindow#2 assigned Player#1.isPlayingChanged at MusicPlayerScenario.swift:#
                seq 2: NowPlayingScreen#3 assigned it at MusicPlayerScenario.swift:#, replacing MiniPlayerWindow#2's callback while MiniPlayerWindow#2 was alive
                MiniPlayerWindow#2 missed the changes at seqs 4, 6, 8, 10
                MiniPlayerWindow#2 was not seen deallocated before the session ended
            error[OJ001] last-callback-wins: 3 owners assigned Player#1.isPlayingChanged; NowPlayingScreen#3 (MusicPlayerScenario.swift:#) was replaced at seq 3 while alive and missed 4 changes.
                seq 2: NowPlayingScreen#3 assigned Player#1.isPlayingChanged at MusicPlayerScenario.swift:#
                seq 3: SongListScreen#4 assigned it at MusicPlayerScenario.swift:#, replacing NowPlayingScreen#3's callback while NowPlayingScreen#3 was alive
                NowPlayingScreen#3 missed the changes at seqs 4, 6, 8, 10
                NowPlayingScreen#3 was not seen deallocated before the session ended
            info[OJ012] silent-change: Player#1.isPlayingChanged changed once with nobody to tell, although 2 owners had registered on it and never asked to stop (first at seq 10).
          fixed, session 2: each screen observes the player's isPlaying as owner and keeps its token
            clean: no findings at warning or above

        video-toolbar (Sources/DemoApps/VideoToolbarScenario.swift): a download button kept in step with the system video player's toolbar through a tap hook and an observation of hidden
          buggy, session 3: the hook and observation outlive the screen, and the auto-hide timer delivers off the main thread
            warning[OJ004] leaked-registration: VideoPlayerScreen#1's registration on *.handleSingleTap (VideoToolbarScenario.swift:#) outlived scope "VideoPlayerScreen visible" (ended at seq 16) and was delivered once after it.
                seq 2: VideoPlayerScreen#1 registered *.handleSingleTap at VideoToolbarScenario.swift:# for scope "VideoPlayerScreen visible"
                seq 16: the scope ended while the registration was live
                seq 18: first of 1 delivery after the scope ended
                seq 21: removed at last
            warning[OJ004] leaked-registration: VideoPlayerScreen#1's registration on ToolbarContainer#3.hidden (VideoToolbarScenario.swift:#) outlived scope "VideoPlayerScreen visible" (ended at seq 16) and was delivered once after it.
                seq 4: VideoPlayerScreen#1 registered ToolbarContainer#3.hidden at VideoToolbarScenario.swift:# for scope "VideoPlayerScreen visible"
                seq 16: the scope ended while the registration was live
                seq 20: first of 1 delivery after the scope ended
                seq 22: removed at last
            error[OJ008] off-main-delivery: VideoPlayerScreen#1's callback on ToolbarContainer#3.hidden (VideoToolbarScenario.swift:#) expects the main thread but ran once on thread 2 (first at seq 15).
                seq 4: VideoPlayerScreen#1 registered at VideoToolbarScenario.swift:# and declared it expects the main thread
                seq 15: delivered on thread 2, not the main thread
          fixed, session 4: delivery on the main queue, and both registrations removed when the screen disappears
            clean: no findings at warning or above

        upload-progress (Sources/DemoApps/UploadProgressScenario.swift): a progress bar that follows an upload's fractionCompleted and stops observing from inside its callback at 1.0
          buggy, session 5: as first written: called on the upload's thread, the callback sends UI work to the main queue itself (correct)
            clean: no findings at warning or above
          fixed, session 6: the registration asks to be delivered on the main queue (also correct)
            clean: no findings at warning or above

        stretchy-header (Sources/DemoApps/StretchyHeaderScenario.swift): a header image that stretches with its scroll view's contentOffset, moved to a second scroll view, then removed
          buggy, session 7: removal both in removeFromSuperview() and in deinit, and an observation of the misspelled contenOffset
            warning[OJ005] never-posted-key: StretchyHeaderView#2 observed ScrollView#1.contenOffset (StretchyHeaderScenario.swift:#), which was never posted; ScrollView posted "contentOffset", 1 edit away: a typo?
                seq 2: StretchyHeaderView#2 registered ScrollView#1.contenOffset at StretchyHeaderScenario.swift:#
                seq 3: ScrollView#1.contentOffset was posted (5 times in all)
            warning[OJ003] remove-unregistered: Removal at StretchyHeaderScenario.swift:# in deinit (seq 16) matched no live registration: StretchyHeaderView#2's registration on ScrollView#3.contentOffset was already removed at seq 15 (explicit, at StretchyHeaderScenario.swift:# in removeFromSuperview()).
                seq 16: removal requested at StretchyHeaderScenario.swift:# in deinit for StretchyHeaderView#2
                seq 10: registered at StretchyHeaderScenario.swift:#
                seq 15: removed (explicit, at StretchyHeaderScenario.swift:# in removeFromSuperview())
          fixed, session 8: one removal, in removeFromSuperview(), and only the correctly spelled key
            clean: no findings at warning or above

        scoreboard-tracking (Sources/DemoApps/ScoreboardTrackingScenario.swift): a scoreboard label follows an @Observable match with withObservationTracking
          buggy, session 9: the score is read before the tracking: apply reads nothing and no goal is announced
            warning[OJ015] tracking-reads-nothing: ScoreLabel#1's withObservationTracking at ScoreboardTrackingScenario.swift:# read no observable property (once, first at seq 1): its onChange can never run.
                seq 1: armed at ScoreboardTrackingScenario.swift:#, tracking nothing
          fixed, session 10: apply reads the match; the display pass after each change arms the tracking again
            clean: no findings at warning or above

        Try next:
          # music-player/buggy, event by event
          swift run obsreplay timeline obsreplay-demo.sqlite --session 1
          # who would have been told with a multicast channel
          swift run obsreplay replay obsreplay-demo.sqlite --session 1 --at 10 --what-if multicast
          # the CI gate: exits 1, the buggy variants have warnings and errors
          swift run obsreplay diagnose obsreplay-demo.sqlite --all --fail-on warning
          # every finding as a spreadsheet
          swift run obsreplay export obsreplay-demo.sqlite --what findings --format csv -o obsreplay-demo-findings.csv

        """)
    // The journal is at the default path, and reading it left no side file.
    #expect(try files(in: directory) == ["obsreplay-demo.html", "obsreplay-demo.sqlite"])
}

@Test(.tags(.childProcess)) func demoJSONHasEverySessionWithItsExactFindingsRecordedOnTheMainThread() throws {
    let directory = try temporaryDirectory()
    let result = try obsreplay(["demo", "--json"], in: directory)
    #expect(result.status == 0 && result.stderr == "")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["journal"] as? String == "obsreplay-demo.sqlite")
    #expect(object["report"] as? String == "obsreplay-demo.html")
    let sessions = try #require(object["sessions"] as? [[String: Any]])
    #expect(sessions.map { $0["label"] as? String } == demoLabels)
    #expect(sessions.map { $0["id"] as? Int } == Array(1...10))
    for session in sessions {
        let label = try #require(session["label"] as? String)
        let findings = try #require(session["findings"] as? [[String: Any]])
        let shapes = findings.map { finding in
            FindingShape(
                code: finding["code"] as? String ?? "", severity: finding["severity"] as? String ?? "",
                message: normalized(finding["message"] as? String ?? ""),
                evidence: (finding["evidence"] as? [String] ?? []).map(normalized)
            )
        }
        #expect(shapes == (expectedOnMain[label] ?? []), "\(label)")
        #expect(session["clean_end"] as? Bool == true)
    }
    let next = try #require(object["next"] as? [[String: String]])
    #expect(next.map { $0["command"] } == [
        "swift run obsreplay timeline obsreplay-demo.sqlite --session 1",
        "swift run obsreplay replay obsreplay-demo.sqlite --session 1 --at 10 --what-if multicast",
        "swift run obsreplay diagnose obsreplay-demo.sqlite --all --fail-on warning",
        "swift run obsreplay export obsreplay-demo.sqlite --what findings --format csv -o obsreplay-demo-findings.csv",
    ])
}

@Test(.tags(.childProcess)) func theTryNextCommandsRunAsTheDemoSays() throws {
    let directory = try temporaryDirectory()
    #expect(try obsreplay(["demo"], in: directory).status == 0)
    let timeline = try obsreplay(["timeline", "obsreplay-demo.sqlite", "--session", "1"], in: directory)
    #expect(timeline.status == 0 && timeline.stdout.split(separator: "\n").count == 11)
    let replay = try obsreplay(
        ["replay", "obsreplay-demo.sqlite", "--session", "1", "--at", "10", "--what-if", "multicast"], in: directory
    )
    #expect(replay.status == 0)
    // Seq 8: only the last assigner was told. Seq 10: it had been closed, so nobody was.
    #expect(replay.stdout.contains(
        "  seq 8  Player#1.isPlayingChanged  received: SongListScreen#4  would have: MiniPlayerWindow#2, NowPlayingScreen#3, SongListScreen#4  missed: MiniPlayerWindow#2, NowPlayingScreen#3\n"
    ))
    #expect(replay.stdout.contains(
        "  seq 10  Player#1.isPlayingChanged  received: nobody  would have: MiniPlayerWindow#2, NowPlayingScreen#3  missed: MiniPlayerWindow#2, NowPlayingScreen#3\n"
    ))
    let diagnose = try obsreplay(["diagnose", "obsreplay-demo.sqlite", "--all", "--fail-on", "warning"], in: directory)
    #expect(diagnose.status == 1)
    #expect(diagnose.stdout.hasSuffix("9 findings (3 errors, 5 warnings, 1 info) in sessions 1-10 of obsreplay-demo.sqlite\n"))
    let export = try obsreplay(
        ["export", "obsreplay-demo.sqlite", "--what", "findings", "--format", "csv", "-o", "obsreplay-demo-findings.csv"],
        in: directory
    )
    #expect(export.status == 0)
    let csv = try String(contentsOf: directory.appendingPathComponent("obsreplay-demo-findings.csv"), encoding: .utf8)
    #expect(csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 1 + 9)
}

@Test(.tags(.childProcess)) func demoReplacesAPreviousDemoJournalWithItsSideFiles() throws {
    let directory = try temporaryDirectory()
    #expect(try obsreplay(["demo"], in: directory).status == 0)
    let again = try obsreplay(["demo", "--scenario", "music-player", "--variant", "buggy", "--json"], in: directory)
    #expect(again.status == 0 && again.stderr == "")
    let sessions = try obsreplay(["sessions", "obsreplay-demo.sqlite", "--json"], in: directory)
    let list = try #require(try JSONSerialization.jsonObject(with: Data(sessions.stdout.utf8)) as? [[String: Any]])
    #expect(list.map { $0["label"] as? String } == ["music-player/buggy"])
    #expect(list.map { $0["process"] as? String } == ["obsreplay"])
    // Nothing left beside it: no temporary journal, no stale side files.
    #expect(try files(in: directory) == ["obsreplay-demo.html", "obsreplay-demo.sqlite"])
}

@Test(.tags(.childProcess)) func demoRecordsOnlyTheScenariosAndVariantsAskedFor() throws {
    let directory = try temporaryDirectory()
    let result = try obsreplay(
        ["demo", "--journal", "my demo.sqlite", "--scenario", "stretchy-header,upload-progress", "--variant", "fixed"],
        in: directory
    )
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.prefix(3) == [
        "Recorded 2 sessions into my demo.sqlite:",
        "  session 1  upload-progress/fixed  10 events, 1 registration",
        "  session 2  stretchy-header/fixed  14 events, 2 registrations",
    ])
    #expect(result.stdout.hasSuffix("""
        Try next:
          # upload-progress/fixed, event by event
          swift run obsreplay timeline 'my demo.sqlite' --session 1
          # the CI gate: exits 0 here
          swift run obsreplay diagnose 'my demo.sqlite' --all --fail-on warning
          # every finding as a spreadsheet
          swift run obsreplay export 'my demo.sqlite' --what findings --format csv -o 'my demo-findings.csv'

        """))
    #expect(try obsreplay(["diagnose", "my demo.sqlite", "--all", "--fail-on", "warning"], in: directory).status == 0)
}

/// Runs the demo at `name` in `directory` and expects it refused: exit 2, `stderr`, and
/// every file of the directory byte for byte as before.
private func expectRefused(_ name: String, in directory: URL, stderr: String) throws {
    func contents() throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        for name in try files(in: directory) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
            result[name] = isDirectory.boolValue ? nil : try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return result
    }
    let before = try contents()
    #expect(try obsreplay(["demo", "--journal", name], in: directory) == RunResult(stdout: "", stderr: stderr, status: 2))
    #expect(try contents() == before)
}

private let moveAway = "It was left untouched; choose another path with --journal, or move it away"

@Test func demoRefusesToReplaceAFileThatIsNotAJournal() throws {
    let directory = try temporaryDirectory()
    try Data("my notes\n".utf8).write(to: directory.appendingPathComponent("notes.sqlite"))
    try expectRefused("notes.sqlite", in: directory, stderr: """
        error: notes.sqlite is not a demo journal: not a journal (not an SQLite database). \(moveAway)

        """)
}

@Test func demoRefusesToReplaceAJournalWithOtherSessions() throws {
    let directory = try temporaryDirectory()
    _ = try demoJournal(in: directory)  // the CLI tests' own journal: "three screens" and "fixed"
    try expectRefused("demo.sqlite", in: directory, stderr: """
        error: demo.sqlite is not a demo journal: its session 1, "three screens", was not recorded by obsreplay demo. \(moveAway)

        """)
}

@Test func demoRefusesAJournalWhoseDemoLabelsAnotherProcessRecorded() throws {
    let directory = try temporaryDirectory()
    let fixture = try JournalFixture(path: directory.appendingPathComponent("app.sqlite").path)
    _ = try fixture.session(label: "music-player/buggy", process: "MyApp")
    try fixture.finish()
    try expectRefused("app.sqlite", in: directory, stderr: """
        error: app.sqlite is not a demo journal: its session 1, "music-player/buggy", was not recorded by obsreplay demo. \(moveAway)

        """)
}

@Test func demoRefusesAStrayWriteAheadLogAndADirectory() throws {
    let directory = try temporaryDirectory()
    try Data("stale log".utf8).write(to: directory.appendingPathComponent("gone.sqlite-wal"))
    try expectRefused("gone.sqlite", in: directory, stderr: """
        error: gone.sqlite-wal exists without the journal it belongs to. \(moveAway)

        """)
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
    try expectRefused("folder", in: directory, stderr: """
        error: folder is not a demo journal: not a regular file. \(moveAway)

        """)
}

@Test(.tags(.childProcess)) func demoRejectsUnknownScenariosAndVariants() throws {
    let usage = "Usage: obsreplay demo [--journal <path>] [--scenario <name> ...] [--variant <variant>] [--json]\n"
        + "  See 'obsreplay demo --help' for more information.\n"
    #expect(try obsreplay(["demo", "--scenario", "music"]) == RunResult(
        stdout: "",
        stderr: "error: invalid value 'music' for '--scenario': expected one of music-player, video-toolbar, upload-progress, stretchy-header, scoreboard-tracking; did you mean 'music-player'?\n" + usage,
        status: 64
    ))
    #expect(try obsreplay(["demo", "--variant", "all"]) == RunResult(
        stdout: "", stderr: "error: invalid value 'all' for '--variant': expected one of buggy, fixed, both\n" + usage, status: 64
    ))
}

@Test(.tags(.childProcess)) func demoIntoAMissingDirectorySaysSoAboutThePathAskedFor() throws {
    let directory = try temporaryDirectory()
    #expect(try obsreplay(["demo", "--journal", "nodir/demo.sqlite"], in: directory) == RunResult(
        stdout: "", stderr: "error: nodir/demo.sqlite: cannot create: No such file or directory\n", status: 2
    ))
    #expect(try files(in: directory) == [])
}
