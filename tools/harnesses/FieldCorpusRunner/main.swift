// Runs ONE field-corpus app variant in this process and records it into a journal:
//
//   FieldCorpusRunner APP buggy|correct JOURNAL [--main-loop run-loop|dispatch-main]
//   FieldCorpusRunner --list
//
// The app's steps play on the main queue while the process's main thread runs the chosen
// Linux main loop (`RunLoop.main.run()` or `dispatchMain()`), as a real app's would; the
// session is closed and the process exits when the story is over. `--list` prints one
// line per app: its name, the codes its bug must get, and its main loops, tab-separated.
// Exit status: 0 recorded, 1 the journal failed, 2 usage.
import FieldCorpus
import Foundation
import ObservationJournal

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("FieldCorpusRunner: \(message)\n".utf8))
    exit(status)
}

func usage() -> Never {
    let names = FieldApp.all.map(\.name).joined(separator: "|")
    fail(
        "usage: FieldCorpusRunner \(names) buggy|correct JOURNAL [--main-loop run-loop|dispatch-main]\n"
            + "       FieldCorpusRunner --list",
        status: 2
    )
}

func runnerMain(_ arguments: [String]) -> Never {
    if arguments == ["--help"] || arguments == ["-h"] {
        let names = FieldApp.all.map(\.name).joined(separator: "|")
        print("usage: FieldCorpusRunner \(names) buggy|correct JOURNAL [--main-loop run-loop|dispatch-main]")
        print("       FieldCorpusRunner --list")
        print("Runs one field-corpus app variant in this process and records it into JOURNAL.")
        exit(0)
    }
    if arguments == ["--list"] {
        for app in FieldApp.all {
            print("\(app.name)\t\(app.expectedCodes.joined(separator: ","))\t\(app.mainLoops.map(\.rawValue).joined(separator: ","))")
        }
        exit(0)
    }
    var positional: [String] = []
    var loop = MainLoop.runLoop
    var index = 0
    while index < arguments.count {
        if arguments[index] == "--main-loop" {
            guard index + 1 < arguments.count, let chosen = MainLoop(rawValue: arguments[index + 1]) else { usage() }
            loop = chosen
            index += 2
        } else {
            positional.append(arguments[index])
            index += 1
        }
    }
    guard positional.count == 3, let app = FieldApp.named(positional[0]),
          let variant = FieldVariant(rawValue: positional[1])
    else { usage() }
    let recording: RecordingSession
    do {
        let journal = try Journal.open(path: positional[2])
        recording = try journal.startSession(label: "\(app.name)/\(variant.rawValue)/\(loop.rawValue)")
    } catch {
        fail("\(error)", status: 1)
    }
    let script = app.script(variant, registry: recording.registry)
    script.start {
        recording.close()
        if let error = recording.lastError { fail("\(error)", status: 1) }
        exit(0)
    }
    switch loop {
    case .runLoop:
        RunLoop.main.run()
        fail("the main run loop returned before the app finished", status: 1)
    case .dispatchMain:
        dispatchMain()
    }
}

runnerMain(Array(CommandLine.arguments.dropFirst()))
