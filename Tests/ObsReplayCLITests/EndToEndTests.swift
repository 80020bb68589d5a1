import Foundation
import JournalAnalysis
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

// Each test runs the built `obsreplay` binary and compares stdout, stderr and the exit
// status exactly.

@Test(.tags(.childProcess)) func versionAndHelp() throws {
    #expect(try obsreplay(["--version"]) == RunResult(stdout: "obsreplay 0.2.0 (journal schema 8)\n", stderr: "", status: 0))
    let help = try obsreplay(["--help"])
    #expect(help.status == 0 && help.stderr.isEmpty)
    #expect(help.stdout.hasPrefix("OVERVIEW: Read observation journals: sessions, timelines, replay, diagnosis and export.\n"))
    #expect(help.stdout.contains("\nSUBCOMMANDS:\n  sessions                List the sessions of a journal"))
    for command in ["sessions", "timeline", "replay", "diagnose", "export", "stats", "check", "migrate"] {
        let own = try obsreplay([command, "--help"])
        #expect(own.status == 0 && own.stderr.isEmpty)
        #expect(own.stdout.contains("\nUSAGE: obsreplay \(command) <journal>"))
        #expect(own.stdout.contains("\nOPTIONS:\n"))
        #expect(try obsreplay(["help", command]) == own)
    }
}

@Test(.tags(.childProcess)) func timelineHelpIsExact() throws {
    #expect(try obsreplay(["timeline", "--help"]).stdout == """
        OVERVIEW: Print the events of a session: sequence, time, thread, kind, channel, owner, call site, old → new.

        Nested dispatch is indented by depth. Filters combine (all must match).
        JSON (--json): JSON Lines, one object per event, with the fields of
        'export --what events'.

        USAGE: obsreplay timeline <journal> [--session <n>] [--key <key>] [--owner <type>] [--kind <kind> ...] [--from <seq>] [--to <seq>] [--limit <n>] [--json]

        ARGUMENTS:
          <journal>               The journal file (opened read-only).

        OPTIONS:
          --session <n>           The session id (default: the latest session).
          --key <key>             Only events on channels with this key.
          --owner <type>          Only events whose owner has this type name, or is this
                                  object (Type#id, as printed).
          --kind <kind> ...       Only events of this kind (repeatable, or
                                  comma-separated): registered, replaced, removed,
                                  removeUnregistered, changed, delivered, skipped,
                                  scopeBegan, scopeEnded, gap, cancelAfterAutoRemoval,
                                  ownerGone.
          --from <seq>            Start at this sequence number.
          --to <seq>              Stop after this sequence number.
          --limit <n>             Print at most n events.
          --json                  Print JSON instead of text (field names are stable).
          --color <when>          Colour: auto, always or never.
          -h, --help              Show help information.

        """)
}

@Test(.tags(.childProcess), arguments: [
    ([], "error: missing subcommand\nUsage: obsreplay <subcommand>\n  See 'obsreplay --help' for more information.\n"),
    (["frobnicate"], "error: unknown subcommand 'frobnicate'\nUsage: obsreplay <subcommand>\n  See 'obsreplay --help' for more information.\n"),
    (["--frob"], "error: unknown option '--frob'\nUsage: obsreplay <subcommand>\n  See 'obsreplay --help' for more information.\n"),
    (["sessions"], "error: missing argument <journal>\nUsage: obsreplay sessions <journal> ... [--json]\n  See 'obsreplay sessions --help' for more information.\n"),
    (["sessions", "j.sqlite", "--bogus"], "error: unknown option '--bogus'\nUsage: obsreplay sessions <journal> ... [--json]\n  See 'obsreplay sessions --help' for more information.\n"),
    (["replay", "j.sqlite"], "error: missing option '--at <seq>'\nUsage: obsreplay replay <journal> [--session <n>] --at <seq> [--what-if <mode>] [--json]\n  See 'obsreplay replay --help' for more information.\n"),
    (["replay", "j.sqlite", "--at", "0"], "error: invalid value '0' for '--at': expected a whole number of at least 1\nUsage: obsreplay replay <journal> [--session <n>] --at <seq> [--what-if <mode>] [--json]\n  See 'obsreplay replay --help' for more information.\n"),
    (["replay", "j.sqlite", "--at", "1", "--what-if", "broadcast"], "error: invalid value 'broadcast' for '--what-if': expected one of multicast\nUsage: obsreplay replay <journal> [--session <n>] --at <seq> [--what-if <mode>] [--json]\n  See 'obsreplay replay --help' for more information.\n"),
    (["diagnose", "j.sqlite", "--fail-on", "fatal"], "error: invalid value 'fatal' for '--fail-on': expected one of error, warning, info, never\nUsage: obsreplay diagnose <journal> ... [--session <n>] [--all] [--fail-on <severity>] [--budget-ms <ms>] [--explain <code>] [--format <format>] [--group-by <key>] [--baseline <file>] [--write-baseline <file>] [--config <file>] [--source-root <dir>] [--output <file>] [--quiet] [--json]\n  See 'obsreplay diagnose --help' for more information.\n"),
    (["diagnose", "j.sqlite", "--all", "--session", "1"], "error: '--all' and '--session' cannot be used together\nUsage: obsreplay diagnose <journal> ... [--session <n>] [--all] [--fail-on <severity>] [--budget-ms <ms>] [--explain <code>] [--format <format>] [--group-by <key>] [--baseline <file>] [--write-baseline <file>] [--config <file>] [--source-root <dir>] [--output <file>] [--quiet] [--json]\n  See 'obsreplay diagnose --help' for more information.\n"),
    (["diagnose", "--explain", "OJ999"], "error: unknown rule 'OJ999': expected one of OJ001, OJ002, OJ003, OJ004, OJ005, OJ006, OJ007, OJ008, OJ009, OJ010, OJ011, OJ012, OJ013, OJ014, OJ015, OJ016, OJ017, OJ018; did you mean 'OJ009'?\nUsage: obsreplay diagnose <journal> ... [--session <n>] [--all] [--fail-on <severity>] [--budget-ms <ms>] [--explain <code>] [--format <format>] [--group-by <key>] [--baseline <file>] [--write-baseline <file>] [--config <file>] [--source-root <dir>] [--output <file>] [--quiet] [--json]\n  See 'obsreplay diagnose --help' for more information.\n"),
    (["export", "j.sqlite", "--what", "events"], "error: missing option '--format <format>'\nUsage: obsreplay export <journal> ... --what <table> --format <format> [--session <n>] [--output <file>] [--raw] [--budget-ms <ms>] [--fleet <dir>] [--events]\n  See 'obsreplay export --help' for more information.\n"),
    (["export", "j.sqlite", "--what", "everything", "--format", "csv"], "error: invalid value 'everything' for '--what': expected one of events, registrations, deliveries, findings\nUsage: obsreplay export <journal> ... --what <table> --format <format> [--session <n>] [--output <file>] [--raw] [--budget-ms <ms>] [--fleet <dir>] [--events]\n  See 'obsreplay export --help' for more information.\n"),
    (["timeline", "j.sqlite", "--kind", "changed,bogus"], "error: invalid value 'bogus' for '--kind': expected one of registered, replaced, removed, removeUnregistered, changed, delivered, skipped, scopeBegan, scopeEnded, gap, cancelAfterAutoRemoval, ownerGone\nUsage: obsreplay timeline <journal> [--session <n>] [--key <key>] [--owner <type>] [--kind <kind> ...] [--from <seq>] [--to <seq>] [--limit <n>] [--json]\n  See 'obsreplay timeline --help' for more information.\n"),
    (["timeline", "j.sqlite", "--limit", "ten"], "error: invalid value 'ten' for '--limit': expected a whole number of at least 1\nUsage: obsreplay timeline <journal> [--session <n>] [--key <key>] [--owner <type>] [--kind <kind> ...] [--from <seq>] [--to <seq>] [--limit <n>] [--json]\n  See 'obsreplay timeline --help' for more information.\n"),
])
func usageErrorsExit64WithTheUsageLine(arguments: [String], stderr: String) throws {
    #expect(try obsreplay(arguments) == RunResult(stdout: "", stderr: stderr, status: 64))
}

@Test(.tags(.childProcess)) func sessionsListsEverySession() throws {
    let path = try demoJournal()
    #expect(try obsreplay(["sessions", path]) == RunResult(stdout: """
        id  label          started               duration  events  registrations  clean end
         1  three screens  2025-01-01T10:00:00Z    2.500s      10              2  yes
         2  fixed          2025-01-01T11:00:00Z    1.000s       4              1  yes

        """, stderr: "", status: 0))
    #expect(try obsreplay(["sessions", path, "--json"]).stdout == """
        [{"id":1,"label":"three screens","process":"App","pid":4242,"host":"testhost","started_at":"2025-01-01T10:00:00Z","ended_at":"2025-01-01T10:00:02.5Z","duration_ns":2500000000,"events":10,"registrations":2,"last_seq":10,"clean_end":true},{"id":2,"label":"fixed","process":"App","pid":4242,"host":"testhost","started_at":"2025-01-01T11:00:00Z","ended_at":"2025-01-01T11:00:01Z","duration_ns":1000000000,"events":4,"registrations":1,"last_seq":4,"clean_end":true}]

        """)
}

@Test(.tags(.childProcess)) func timelineReadsLikeAStoryAndFilters() throws {
    let path = try demoJournal()
    #expect(try obsreplay(["timeline", path, "--session", "1"]) == RunResult(stdout: """
              1     +0.001s  main   registered          Player#1.isPlayingChanged  FloatingWindow#2  FloatingWindow.swift:31  reg 1
              2     +0.002s  main   changed             Player#1.isPlayingChanged  false → true  at Player.swift:40  live 1
              3     +0.003s  main   delivered           Player#1.isPlayingChanged  FloatingWindow#2  reg 1  0.1 ms
              4     +0.004s  main   changed             Player#1.isPlayingChanged  true → false  at Player.swift:40  live 1
              5     +0.005s  main   delivered           Player#1.isPlayingChanged  FloatingWindow#2  reg 1  0.1 ms
              6     +0.006s  main   replaced            Player#1.isPlayingChanged  VideoScreen#3  VideoScreen.swift:20  reg 2  replaces reg 1 of FloatingWindow#2 (FloatingWindow.swift:31)
              7     +0.007s  main   changed             Player#1.isPlayingChanged  false → true  at Player.swift:40  live 1
              8     +0.008s  main   delivered           Player#1.isPlayingChanged  VideoScreen#3  reg 2  0.1 ms
              9     +0.009s  main   changed             Player#1.isPlayingChanged  true → false  at Player.swift:40  live 1
             10     +0.010s  main   delivered           Player#1.isPlayingChanged  VideoScreen#3  reg 2  0.1 ms

        """, stderr: "", status: 0))
    let seqs = { (arguments: [String]) throws -> [String] in
        try obsreplay(["timeline", path] + arguments).stdout.split(separator: "\n").map {
            String($0.split(separator: " ").first ?? "")
        }
    }
    #expect(try seqs(["--session", "1", "--owner", "VideoScreen"]) == ["6", "8", "10"])
    #expect(try seqs(["--session", "1", "--kind", "replaced", "--kind", "registered"]) == ["1", "6"])
    #expect(try seqs(["--session", "1", "--kind", "changed,delivered", "--from", "4", "--to", "8"]) == ["4", "5", "7", "8"])
    #expect(try seqs(["--session", "1", "--key", "isPlayingChanged", "--limit", "2"]) == ["1", "2"])
    // The latest session by default.
    #expect(try seqs([]) == ["1", "2", "3", "4"])
    #expect(try obsreplay(["timeline", path, "--session", "1", "--key", "x' OR 1=1 --", "--owner", "\"; DROP TABLE events; --"])
        == RunResult(stdout: "", stderr: "", status: 0))
    #expect(try obsreplay(["timeline", path, "--limit", "1", "--json"]).stdout == """
        {"session_id":2,"seq":1,"time_ns":1000000,"kind":"registered","thread":1,"is_main":true,"channel_id":1,"channel":"Player#1.rate","registration_id":1,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null}

        """)
}

@Test(.tags(.childProcess)) func replayShowsStateReceiversAndWhatIf() throws {
    let path = try demoJournal()
    #expect(try obsreplay(["replay", path, "--session", "1", "--at", "9", "--what-if", "multicast"]) == RunResult(stdout: """
        session 1 at seq 9 (+0.009s)

        live registrations:
          Player#1.isPlayingChanged (singleSlot, 1 live)
            reg 2  VideoScreen#3  VideoScreen.swift:20  since seq 6  alive

        change at seq 9: Player#1.isPlayingChanged  true → false  posted at Player.swift:40
          received (1):
            reg 2  VideoScreen#3  VideoScreen.swift:20  at seq 10  0.1 ms
          not received (1):
            reg 1  FloatingWindow#2  FloatingWindow.swift:31  replaced at seq 6 by VideoScreen#3 (VideoScreen.swift:20), owner still alive

        what if single-slot channels were multicast (4 changes up to seq 9):
          seq 2  Player#1.isPlayingChanged  received: FloatingWindow#2  would have: FloatingWindow#2
          seq 4  Player#1.isPlayingChanged  received: FloatingWindow#2  would have: FloatingWindow#2
          seq 7  Player#1.isPlayingChanged  received: VideoScreen#3  would have: FloatingWindow#2, VideoScreen#3  missed: FloatingWindow#2
          seq 9  Player#1.isPlayingChanged  received: VideoScreen#3  would have: FloatingWindow#2, VideoScreen#3  missed: FloatingWindow#2

        """, stderr: "", status: 0))
    #expect(try obsreplay(["replay", path, "--at", "3", "--json"]).stdout == """
        {"session":2,"at":3,"time_ns":3000000,"channels":[{"channel_id":1,"channel":"Player#1.rate","policy":"multicast","registrations":[{"registration_id":1,"owner":"Screen#2","owner_alive":true,"call_site":"Screen.swift:5","registered_seq":1,"options":"new","scope":null}]}],"change":{"seq":2,"channel":"Player#1.rate","policy":"multicast","old":"1","new":"2","is_prior":false,"depth":0,"call_site":"Player.swift:60","received":[{"registration_id":1,"owner":"Screen#2","call_site":"Screen.swift:5","seq":3,"duration_ns":100000}],"not_received":[]},"what_if":null}

        """)
    #expect(try obsreplay(["replay", path, "--at", "5"]) == RunResult(
        stdout: "", stderr: "error: \(path): seq 5 is beyond the end of session 2 (last seq 4)\n", status: 2
    ))
}

@Test(.tags(.childProcess)) func diagnoseExitsByFailOnAndExplains() throws {
    let path = try demoJournal()
    let expected = """
        error[OJ001] last-callback-wins (session 1): 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 6 while alive and missed 2 changes.
            seq 1: FloatingWindow#2 assigned Player#1.isPlayingChanged at FloatingWindow.swift:31
            seq 6: VideoScreen#3 assigned it at VideoScreen.swift:20, replacing FloatingWindow#2's callback while FloatingWindow#2 was alive
            FloatingWindow#2 missed the changes at seqs 7, 9
            FloatingWindow#2 was not seen deallocated before the session ended
          fix: Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others.

        info[OJ004] leaked-registration (session 1): VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.
            seq 6: VideoScreen#3 registered at VideoScreen.swift:20, never removed
          fix: Remove the registration when its scope ends (cancel its token there), or tie it to an owner that goes away with the scope.

        2 findings (1 error, 0 warnings, 1 info) in session 1 of \(path)

        """
    #expect(try obsreplay(["diagnose", path, "--session", "1"]) == RunResult(stdout: expected, stderr: "", status: 1))
    // Every session by default (and with --all), and the summary names them.
    let all = expected.replacingOccurrences(of: "in session 1 of", with: "in sessions 1-2 of")
    #expect(try obsreplay(["diagnose", path, "--all"]) == RunResult(stdout: all, stderr: "", status: 1))
    #expect(try obsreplay(["diagnose", path]) == RunResult(stdout: all, stderr: "", status: 1))
    #expect(try obsreplay(["diagnose", path, "--session", "1", "--fail-on", "never"]).status == 0)
    // The latest session (the fixed one) is clean, and the verdict says it covers only it.
    #expect(try obsreplay(["diagnose", path, "--session", "2", "--fail-on", "info"]) == RunResult(
        stdout: "0 findings (0 errors, 0 warnings, 0 info) in session 2 of \(path)\n", stderr: "", status: 0
    ))
    let json = try obsreplay(["diagnose", path, "--all", "--json", "--fail-on", "warning"])
    #expect(json.status == 1)
    #expect(json.stdout.hasPrefix("[{\"session_id\":1,\"code\":\"OJ001\",\"name\":\"last-callback-wins\",\"severity\":\"error\",\"message\":\"2 owners assigned"))
    #expect(json.stdout.contains("\"seqs\":[1,6],\"count\":2,\"evidence\":[\"seq 1: FloatingWindow#2 assigned Player#1.isPlayingChanged at FloatingWindow.swift:31\","))
    let explain = try obsreplay(["diagnose", "--explain", "last-callback-wins"])
    #expect(explain.status == 0)
    #expect(explain.stdout.hasPrefix("OJ001 last-callback-wins (error)\n\nOn a single-slot channel a live owner's callback was replaced by another owner's, or by its own from another call site; the replaced callback silently missed every later change.\n"))
    #expect(try obsreplay(["diagnose", "--explain", "oj001"]) == explain)
}

@Test(.tags(.childProcess)) func exportWritesToAFileAndNeverOverTheJournal() throws {
    let directory = try temporaryDirectory()
    let path = try demoJournal(in: directory)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let out = directory.appendingPathComponent("registrations.csv")
    #expect(try obsreplay(["export", path, "--what", "registrations", "--format", "csv", "-o", out.path])
        == RunResult(stdout: "", stderr: "", status: 0))
    let first = try provenanceCSV(path, session: 1), second = try provenanceCSV(path, session: 2)
    #expect(try String(contentsOf: out, encoding: .utf8) == [
        "session_id,id,channel_id,channel,policy,owner_id,owner,call_site,function,options,queue,expects_main,sender,scope_id,scope,registered_seq,removed_seq,removal_reason,journal_id,host,run",
        "1,1,1,Player#1.isPlayingChanged,singleSlot,2,FloatingWindow#2,App/FloatingWindow.swift:31,f(),new,,false,,,,1,6,replaced" + first,
        "1,2,1,Player#1.isPlayingChanged,singleSlot,3,VideoScreen#3,App/VideoScreen.swift:20,f(),new,,false,,,,6,," + first,
        "2,1,1,Player#1.rate,multicast,2,Screen#2,App/Screen.swift:5,f(),new,,false,,,,1,4,tokenCancelled" + second,
        "",
    ].joined(separator: "\r\n"))
    #expect(try obsreplay(["export", path, "--what", "events", "--format", "jsonl", "--output", path]) == RunResult(
        stdout: "", stderr: "error: \(path): refusing to write the export over the journal\n", status: 2
    ))
    #expect(try obsreplay(["export", path, "--what", "deliveries", "--format", "jsonl", "--session", "2"]).stdout == """
        {"session_id":2,"seq":3,"time_ns":3000000,"kind":"delivered","change_seq":2,"channel_id":1,"channel":"Player#1.rate","registration_id":1,"owner_id":2,"owner":"Screen#2","call_site":"App/Screen.swift:5","thread":1,"is_main":true,"expects_main":false,"depth":0,"duration_ns":100000,"reason":null,"initial_value":null\(try provenanceJSON(path, session: 2))}

        """)
    let unknown = directory.appendingPathComponent("unknown.csv")
    #expect(try obsreplay(["export", path, "--what", "events", "--format", "csv", "--session", "5", "-o", unknown.path])
        == RunResult(stdout: "", stderr: "error: \(path): no session 5\n", status: 2))
    #expect(!FileManager.default.fileExists(atPath: unknown.path))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
}

@Test(.tags(.childProcess)) func statsCheckAndMigrate() throws {
    let path = try demoJournal()
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    #expect(try obsreplay(["stats", path]) == RunResult(stdout: """
        file size       \(size) bytes
        schema version  8
        sessions        2
        events          14
        registrations   3

        events by kind:
          5  changed
          5  delivered
          2  registered
          1  removed
          1  replaced

        busiest channels (events):
          10  Player#1.isPlayingChanged  (session 1)
           4  Player#1.rate  (session 2)

        owners with most registrations:
          1  FloatingWindow#2  (session 1)
          1  VideoScreen#3  (session 1)
          1  Screen#2  (session 2)

        """, stderr: "", status: 0))
    #expect(try obsreplay(["stats", path, "--session", "2", "--json"]).stdout == """
        {"file_size":\(size),"schema_version":8,"sessions":1,"events":4,"registrations":1,"events_by_kind":{"changed":1,"delivered":1,"registered":1,"removed":1},"busiest_channels":[{"session_id":2,"name":"Player#1.rate","count":4}],"top_owners":[{"session_id":2,"name":"Screen#2","count":1}]}

        """)
    #expect(try obsreplay(["check", path]) == RunResult(stdout: """
        schema version    8 (this version reads up to 8)
        application id    0x4F4A524E (ObservationJournal)
        integrity         ok
        unclean sessions  none
        recorded gaps     none
        missing seqs      none
        long names        none
        ok

        """, stderr: "", status: 0))
    #expect(try obsreplay(["migrate", path]) == RunResult(
        stdout: "", stderr: "\(path): already at the latest schema (8); nothing to do\n", status: 0
    ))
}

@Test(.tags(.childProcess)) func checkReportsUncleanSessionsGapsAndMissingSeqs() throws {
    let path = try temporaryDirectory().appendingPathComponent("gaps.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "crashed", clean: false)
    let rate = try s.channel(try s.object("Player"), "rate")
    try s.change(rate, old: "1", new: "2")  // seq 1
    try s.gap(dropped: 40)  // seq 2
    s.skipSeqs(3)  // seqs 3-5 missing
    try s.change(rate, old: "2", new: "3")  // seq 6
    try fixture.finish()
    #expect(try obsreplay(["check", path]) == RunResult(stdout: """
        schema version    8 (this version reads up to 8)
        application id    0x4F4A524E (ObservationJournal)
        integrity         ok
        unclean sessions  1
        recorded gaps     1
            session 1 seq 2: dropped=40
        missing seqs      1 ranges
            session 1: seq 3–5
        long names        none
        damaged

        """, stderr: "", status: 1))
    #expect(try obsreplay(["check", path, "--json"]).stdout == """
        {"schema_version":8,"supported_version":8,"application_id":"0x4F4A524E","integrity":["ok"],"unclean_sessions":[1],"recorded_gaps":[{"session_id":1,"seq":2,"detail":"dropped=40"}],"seq_gaps":[{"session_id":1,"from":3,"to":5}],"long_names":[],"long_name_count":0,"healthy":false}

        """)
}

/// One version: what `obsreplay --version` prints is what a recorded session stores.
@Test(.tags(.childProcess)) func versionIsTheRecordedLibraryVersion() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("version.sqlite").path
    try Journal.open(path: path).startSession(label: "version").close()
    let recorded = try JournalReader(path: path).sessions().map(\.libraryVersion)
    let printed = try obsreplay(["--version"]).stdout.split(separator: " ")[1]
    #expect(recorded == [String(printed)])
}
