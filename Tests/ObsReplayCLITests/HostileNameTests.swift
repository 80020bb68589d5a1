import Foundation
import JournalFixtures
import Testing
import TestSupport

/// Names of megabytes in a journal from elsewhere: a type name, two channel keys that
/// differ only at their end, a call site's file, a queue label and a scope name. Every
/// command shows each shortened to 1,024 UTF-8 bytes (prefix, `…[N bytes, fnv HASH]`), so
/// what it writes stays proportional to the journal (an 8 MB key made `timeline` of a
/// 10 MB journal write 16 GB); the two keys stay two channels; `check` reports the names;
/// the file is never changed. Expected hashes were computed apart (FNV-1a 64 in Python).
@Suite(.tags(.childProcess)) struct HostileNameTests {
    static let type = String(repeating: "T", count: 2_000_000)
    static let keyA = String(repeating: "K", count: 3_000_000) + "a"
    static let keyB = String(repeating: "K", count: 3_000_000) + "b"
    static let file = String(repeating: "F", count: 1_000_000) + ".swift"

    /// As every command shows them.
    static let shownType = String(repeating: "T", count: 984) + "…[2000000 bytes, fnv 96cbca4c9e294f25]"
    static let shownKeyA = String(repeating: "K", count: 984) + "…[3000001 bytes, fnv ec6d9a2ec3adb9cc]"
    static let shownKeyB = String(repeating: "K", count: 984) + "…[3000001 bytes, fnv ec6d9d2ec3adbee5]"
    /// The file as stored is `App/` + `file`; a call site shows its last path component.
    static let shownFile = String(repeating: "F", count: 980) + "…[1000010 bytes, fnv 870aef629ad54428]"
    static let shownQueue = String(repeating: "Q", count: 987) + "…[5000 bytes, fnv 5c212a7afd99a06d]"
    static let shownScope = String(repeating: "S", count: 987) + "…[5000 bytes, fnv ef65153dd2e9178d]"

    /// The hostile journal: one subject of the long type with a channel for each key, an
    /// owner registered on the first from the long file, on the long queue, in the long
    /// scope; one change on each channel.
    static func journal(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("names.sqlite").path
        let fixture = try JournalFixture(path: path)
        let s = try fixture.session(label: "long names")
        let subject = try s.object(type)
        let owner = try s.object("Screen")
        let a = try s.channel(subject, keyA)
        let b = try s.channel(subject, keyB)
        let scope = try s.beginScope(String(repeating: "S", count: 5000))
        let registration = try s.register(a, owner: owner, at: file + ":5", queue: String(repeating: "Q", count: 5000), scope: scope)
        let other = try s.register(b, owner: owner, at: "Screen.swift:7")
        // Slow callbacks: a finding on each channel, which names it.
        try s.post(a, old: "0", new: "1", at: file + ":9", duration: 50_000_000)
        try s.post(b, old: "0", new: "1", duration: 50_000_000)
        try s.remove(registration)
        try s.remove(other)
        _ = try s.endScope(scope)
        try fixture.finish()
        return path
    }

    static let commands: [[String]] = [
        ["timeline"], ["timeline", "--json"], ["export", "--what", "events", "--format", "csv"],
        ["export", "--what", "events", "--format", "jsonl"], ["export", "--what", "events", "--format", "chrome-trace"],
        ["export", "--what", "registrations", "--format", "csv"], ["diagnose", "--fail-on", "never"],
        ["diagnose", "--json", "--fail-on", "never"], ["stats"], ["sessions"], ["replay", "--at", "5"], ["check"],
        ["export", "--what", "findings", "--format", "csv"], ["timeline", "--key", shownKeyB], ["report", "-o", "-"],
    ]

    /// What each command of `commands` (by index) prints, exactly, and its exit status.
    /// `--key` with a shortened key finds its channel; the two keys sharing their first
    /// 3,000,000 bytes are two channels, two findings with two fingerprints.
    static func expected(path: String, size: Int) throws -> [(command: Int, stdout: String, status: Int32)] {
        let (t, ka, kb, f, q, s) = (
            shownType, shownKeyA, shownKeyB, shownFile, shownQueue, shownScope
        )
        let provenance = try provenanceCSV(path, session: 1)
        let provenanceJSON = try ObsReplayCLITests.provenanceJSON(path, session: 1)
        return [
        // timeline
        (0, """
                  1     +0.001s  main   scopeBegan          scope 1  "\(s)"
                  2     +0.002s  main   registered          \(t)#1.\(ka)  Screen#2  \(f):5  reg 1
                  3     +0.003s  main   registered          \(t)#1.\(kb)  Screen#2  Screen.swift:7  reg 2
                  4     +0.004s  main   changed             \(t)#1.\(ka)  0 → 1  at \(f):9  live 1
                  5     +0.005s  main   delivered           \(t)#1.\(ka)  Screen#2  reg 1  50.0 ms
                  6     +0.006s  main   changed             \(t)#1.\(kb)  0 → 1  live 1
                  7     +0.007s  main   delivered           \(t)#1.\(kb)  Screen#2  reg 2  50.0 ms
                  8     +0.008s  main   removed             \(t)#1.\(ka)  Screen#2  reg 1  explicit
                  9     +0.009s  main   removed             \(t)#1.\(kb)  Screen#2  reg 2  explicit
                 10     +0.010s  main   scopeEnded          scope 1  "\(s)"

            """, 0),
        // export
        (2, """
            session_id,seq,time_ns,kind,thread,is_main,channel_id,channel,registration_id,owner_id,owner,other_registration_id,call_site,scope_id,depth,live_count,duration_ns,is_prior,old_value,new_value,reason,detail,main_queue,cpu_ns,waits,change_seq,run_queue_ns,journal_id,host,run\r
            1,1,1000000,scopeBegan,1,true,,,,,,,,1,0,,,false,,,,,,,,,\(provenance)\r
            1,2,2000000,registered,1,true,1,"\(t)#1.\(ka)",1,2,Screen#2,,,1,0,,,false,,,,,,,,,\(provenance)\r
            1,3,3000000,registered,1,true,2,"\(t)#1.\(kb)",2,2,Screen#2,,,,0,,,false,,,,,,,,,\(provenance)\r
            1,4,4000000,changed,1,true,1,"\(t)#1.\(ka)",,,,,"App/\(f):9",,0,1,,false,0,1,,,,,,,\(provenance)\r
            1,5,5000000,delivered,1,true,1,"\(t)#1.\(ka)",1,2,Screen#2,,,,0,,50000000,false,,,,,,,,,\(provenance)\r
            1,6,6000000,changed,1,true,2,"\(t)#1.\(kb)",,,,,,,0,1,,false,0,1,,,,,,,\(provenance)\r
            1,7,7000000,delivered,1,true,2,"\(t)#1.\(kb)",2,2,Screen#2,,,,0,,50000000,false,,,,,,,,,\(provenance)\r
            1,8,8000000,removed,1,true,1,"\(t)#1.\(ka)",1,2,Screen#2,,,,0,,,false,,,explicit,,,,,,\(provenance)\r
            1,9,9000000,removed,1,true,2,"\(t)#1.\(kb)",2,2,Screen#2,,,,0,,,false,,,explicit,,,,,,\(provenance)\r
            1,10,10000000,scopeEnded,1,true,,,,,,,,1,0,,,false,,,,,,,,,\(provenance)\r

            """, 0),
        // export
        (3, """
            {"session_id":1,"seq":1,"time_ns":1000000,"kind":"scopeBegan","thread":1,"is_main":true,"channel_id":null,"channel":null,"registration_id":null,"owner_id":null,"owner":null,"other_registration_id":null,"call_site":null,"scope_id":1,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":2,"time_ns":2000000,"kind":"registered","thread":1,"is_main":true,"channel_id":1,"channel":"\(t)#1.\(ka)","registration_id":1,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":1,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":3,"time_ns":3000000,"kind":"registered","thread":1,"is_main":true,"channel_id":2,"channel":"\(t)#1.\(kb)","registration_id":2,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":4,"time_ns":4000000,"kind":"changed","thread":1,"is_main":true,"channel_id":1,"channel":"\(t)#1.\(ka)","registration_id":null,"owner_id":null,"owner":null,"other_registration_id":null,"call_site":"App/\(f):9","scope_id":null,"depth":0,"live_count":1,"duration_ns":null,"is_prior":false,"old_value":"0","new_value":"1","reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":5,"time_ns":5000000,"kind":"delivered","thread":1,"is_main":true,"channel_id":1,"channel":"\(t)#1.\(ka)","registration_id":1,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":50000000,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":6,"time_ns":6000000,"kind":"changed","thread":1,"is_main":true,"channel_id":2,"channel":"\(t)#1.\(kb)","registration_id":null,"owner_id":null,"owner":null,"other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":1,"duration_ns":null,"is_prior":false,"old_value":"0","new_value":"1","reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":7,"time_ns":7000000,"kind":"delivered","thread":1,"is_main":true,"channel_id":2,"channel":"\(t)#1.\(kb)","registration_id":2,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":50000000,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":8,"time_ns":8000000,"kind":"removed","thread":1,"is_main":true,"channel_id":1,"channel":"\(t)#1.\(ka)","registration_id":1,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":"explicit","detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":9,"time_ns":9000000,"kind":"removed","thread":1,"is_main":true,"channel_id":2,"channel":"\(t)#1.\(kb)","registration_id":2,"owner_id":2,"owner":"Screen#2","other_registration_id":null,"call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":"explicit","detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}
            {"session_id":1,"seq":10,"time_ns":10000000,"kind":"scopeEnded","thread":1,"is_main":true,"channel_id":null,"channel":null,"registration_id":null,"owner_id":null,"owner":null,"other_registration_id":null,"call_site":null,"scope_id":1,"depth":0,"live_count":null,"duration_ns":null,"is_prior":false,"old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":null,"cpu_ns":null,"waits":null,"change_seq":null,"run_queue_ns":null\(provenanceJSON)}

            """, 0),
        // export
        (4, """
            {"displayTimeUnit":"ms","otherData":{"generator":"obsreplay"},"traceEvents":[
            {"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"session 1: long names (App, pid 4242)"}},
            {"name":"process_sort_index","ph":"M","pid":1,"tid":0,"ts":0,"args":{"sort_index":1}},
            {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"thread 1 (main)"}},
            {"name":"\(s)","ph":"b","pid":1,"tid":1,"ts":1000.0,"cat":"scope","id":1,"args":{"seq":1}},
            {"name":"\(t)#1.\(ka)","ph":"b","pid":1,"tid":1,"ts":2000.0,"cat":"registration","id":1,"args":{"seq":2,"registration":1,"owner":"Screen#2","call_site":"\(f):5","function":"f()","options":"new","queue":"\(q)","expects_main":false}},
            {"name":"\(t)#1.\(kb)","ph":"b","pid":1,"tid":1,"ts":3000.0,"cat":"registration","id":2,"args":{"seq":3,"registration":2,"owner":"Screen#2","call_site":"Screen.swift:7","function":"f()","options":"new","queue":null,"expects_main":false}},
            {"name":"changed \(t)#1.\(ka)","ph":"i","pid":1,"tid":1,"ts":4000.0,"cat":"changed","s":"t","args":{"seq":4,"old":"0","new":"1","live_count":1,"depth":0,"is_prior":false,"call_site":"\(f):9"}},
            {"name":"\(t)#1.\(ka) → Screen#2","ph":"X","pid":1,"tid":1,"ts":0.0,"cat":"delivery","dur":50000.0,"args":{"seq":5,"registration":1,"owner":"Screen#2","call_site":"\(f):5","depth":0,"expects_main":false,"off_main":false,"initial_value":null}},
            {"name":"changed \(t)#1.\(kb)","ph":"i","pid":1,"tid":1,"ts":6000.0,"cat":"changed","s":"t","args":{"seq":6,"old":"0","new":"1","live_count":1,"depth":0,"is_prior":false,"call_site":null}},
            {"name":"\(t)#1.\(kb) → Screen#2","ph":"X","pid":1,"tid":1,"ts":0.0,"cat":"delivery","dur":50000.0,"args":{"seq":7,"registration":2,"owner":"Screen#2","call_site":"Screen.swift:7","depth":0,"expects_main":false,"off_main":false,"initial_value":null}},
            {"name":"removed Screen#2 from \(t)#1.\(ka)","ph":"i","pid":1,"tid":1,"ts":8000.0,"cat":"removed","s":"t","args":{"seq":8,"registration":1,"owner":"Screen#2","reason":"explicit","call_site":null}},
            {"name":"\(t)#1.\(ka)","ph":"e","pid":1,"tid":1,"ts":8000.0,"cat":"registration","id":1,"args":{"seq":8,"ended":"explicit"}},
            {"name":"removed Screen#2 from \(t)#1.\(kb)","ph":"i","pid":1,"tid":1,"ts":9000.0,"cat":"removed","s":"t","args":{"seq":9,"registration":2,"owner":"Screen#2","reason":"explicit","call_site":null}},
            {"name":"\(t)#1.\(kb)","ph":"e","pid":1,"tid":1,"ts":9000.0,"cat":"registration","id":2,"args":{"seq":9,"ended":"explicit"}},
            {"name":"\(s)","ph":"e","pid":1,"tid":1,"ts":10000.0,"cat":"scope","id":1,"args":{"seq":10,"ended":"ended"}}
            ]}

            """, 0),
        // export
        (5, """
            session_id,id,channel_id,channel,policy,owner_id,owner,call_site,function,options,queue,expects_main,sender,scope_id,scope,registered_seq,removed_seq,removal_reason,journal_id,host,run\r
            1,1,1,"\(t)#1.\(ka)",multicast,2,Screen#2,"App/\(f):5",f(),new,"\(q)",false,,1,"\(s)",2,8,explicit\(provenance)\r
            1,2,2,"\(t)#1.\(kb)",multicast,2,Screen#2,App/Screen.swift:7,f(),new,,false,,,,3,9,explicit\(provenance)\r

            """, 0),
        // diagnose
        (6, """
            warning[OJ010] slow-callback (session 1): Screen#2's callback on \(t)#1.\(ka) (\(f):5) blocked the main thread longer than 16.0 ms once, up to 50.0 ms (first at seq 5).
                seq 5: first delivery on main over 16.0 ms
                seq 5: the slowest, 50.0 ms
              fix: Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short.

            warning[OJ010] slow-callback (session 1): Screen#2's callback on \(t)#1.\(kb) (Screen.swift:7) blocked the main thread longer than 16.0 ms once, up to 50.0 ms (first at seq 7).
                seq 7: first delivery on main over 16.0 ms
                seq 7: the slowest, 50.0 ms
              fix: Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short.

            2 findings (0 errors, 2 warnings, 0 info) in session 1 of \(path)

            """, 0),
        // diagnose
        (7, """
            [{"session_id":1,"code":"OJ010","name":"slow-callback","severity":"warning","message":"Screen#2's callback on \(t)#1.\(ka) (\(f):5) blocked the main thread longer than 16.0 ms once, up to 50.0 ms (first at seq 5).","channel":"\(t)#1.\(ka)","owners":["Screen#2"],"call_sites":["App/\(f):5"],"seqs":[5],"count":1,"evidence":["seq 5: first delivery on main over 16.0 ms","seq 5: the slowest, 50.0 ms"],"fix":"Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short.","fingerprint":"714a51c3500099d6e64258d08acfe2f3","journal":"\(path)"},{"session_id":1,"code":"OJ010","name":"slow-callback","severity":"warning","message":"Screen#2's callback on \(t)#1.\(kb) (Screen.swift:7) blocked the main thread longer than 16.0 ms once, up to 50.0 ms (first at seq 7).","channel":"\(t)#1.\(kb)","owners":["Screen#2"],"call_sites":["App/Screen.swift:7"],"seqs":[7],"count":1,"evidence":["seq 7: first delivery on main over 16.0 ms","seq 7: the slowest, 50.0 ms"],"fix":"Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short.","fingerprint":"bbb7ddaffb644dd9282e7b5800fc9370","journal":"\(path)"}]

            """, 0),
        // stats
        (8, """
            file size       \(size) bytes
            schema version  8
            sessions        1
            events          10
            registrations   2

            events by kind:
              2  changed
              2  delivered
              2  registered
              2  removed
              1  scopeBegan
              1  scopeEnded

            busiest channels (events):
              4  \(t)#1.\(ka)  (session 1)
              4  \(t)#1.\(kb)  (session 1)

            owners with most registrations:
              2  Screen#2  (session 1)

            """, 0),
        // replay
        (10, """
            session 1 at seq 5 (+0.005s)

            live registrations:
              \(t)#1.\(ka) (multicast, 1 live)
                reg 1  Screen#2  \(f):5  since seq 2  alive  scope "\(s)"
              \(t)#1.\(kb) (multicast, 1 live)
                reg 2  Screen#2  Screen.swift:7  since seq 3  alive

            change at seq 4: \(t)#1.\(ka)  0 → 1  posted at \(f):9
              received (1):
                reg 1  Screen#2  \(f):5  at seq 5  50.0 ms
              not received (0):

            """, 0),
        // check
        (11, """
            schema version    8 (this version reads up to 8)
            application id    0x4F4A524E (ObservationJournal)
            integrity         ok
            unclean sessions  none
            recorded gaps     none
            missing seqs      none
            long names        6 longer than 1024 bytes (shown shortened)
                strings id 1: 2000000 bytes
                strings id 3: 3000001 bytes
                strings id 4: 3000001 bytes
                strings id 5: 5000 bytes
                strings id 6: 1000010 bytes
                strings id 8: 5000 bytes
            damaged

            """, 1),
        // timeline
        (13, """
                  3     +0.003s  main   registered          \(t)#1.\(kb)  Screen#2  Screen.swift:7  reg 2
                  6     +0.006s  main   changed             \(t)#1.\(kb)  0 → 1  live 1
                  7     +0.007s  main   delivered           \(t)#1.\(kb)  Screen#2  reg 2  50.0 ms
                  9     +0.009s  main   removed             \(t)#1.\(kb)  Screen#2  reg 2  explicit

            """, 0),

        ]
    }

    @Test func everyCommandShowsEachLongNameShortened() throws {
        let scratch = try ScratchDirectory("hostile-names")
        let path = try Self.journal(in: scratch.url)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for (index, stdout, status) in try Self.expected(path: path, size: before.count) {
            let command = Self.commands[index]
            let result = try obsreplay([command[0], path] + command.dropFirst())
            #expect(result == RunResult(stdout: stdout, stderr: "", status: status), "\(command)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// The journal holds 11 MB of names; no command writes more than 64 KB for its ten
    /// events (each name at most 1,024 bytes; the report 128 KB, with its script and
    /// style), the report shows each name shortened, and none changes the file.
    @Test func outputStaysSmallAndTheFileUnchanged() throws {
        let scratch = try ScratchDirectory("hostile-names")
        let path = try Self.journal(in: scratch.url)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before.count > 11_000_000)
        for command in Self.commands {
            let result = try obsreplay([command[0], path] + command.dropFirst())
            #expect(result.status == 0 || (command[0] == "check" && result.status == 1), "\(command): \(result.stderr)")
            // The report carries its 70 KB of script and style.
            let limit = command[0] == "report" ? 131_072 : 65_536
            #expect(result.stdout.utf8.count < limit, "\(command): \(result.stdout.utf8.count) bytes")
            #expect(!result.stdout.contains(String(repeating: "K", count: 1000)), "\(command)")
        }
        let report = try obsreplay(["report", path, "-o", "-"]).stdout
        for name in [Self.shownType, Self.shownKeyA, Self.shownKeyB, Self.shownFile, Self.shownQueue, Self.shownScope] {
            #expect(report.contains(name), "report lacks \(name.suffix(40))")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
