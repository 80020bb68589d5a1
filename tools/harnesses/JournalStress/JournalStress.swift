import Foundation

/// Child processes and long runs for the reliability harnesses (RELIABILITY.md).
///
/// - `record JOURNAL LABEL CHANGES`: records a two-thread workload, closes the session,
///   prints its counters as one JSON line (two of these at once test two processes
///   recording into one file).
/// - `fill JOURNAL [MAX_FILE_BYTES]`: records until the disk is full (a small tmpfs) or,
///   with MAX_FILE_BYTES, until a file would grow past that (`RLIMIT_FSZ`, with
///   `SIGXFSZ` ignored); goes on changing values after recording stopped, then prints
///   the counters, the deliveries and the error as one JSON line.
/// - `soak [--seconds S] [--threads T] [--journal PATH] [--registry-only] [--no-memory-check]`: the soak harness; exits 1 if a
///   check fails.
@main
enum JournalStress {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "--help", "-h":
            print(usageText)
            exit(0)
        case "record" where arguments.count == 4:
            guard let changes = Int(arguments[3]) else { usage() }
            RecordCommand.run(path: arguments[1], label: arguments[2], changes: changes)
        case "fill" where arguments.count == 2 || arguments.count == 3:
            let limit = arguments.count == 3 ? UInt64(arguments[2]) : nil
            if arguments.count == 3 && limit == nil { usage() }
            FillCommand.run(path: arguments[1], maxFileBytes: limit)
        case "soak":
            guard let settings = Soak.Settings(Array(arguments.dropFirst())) else { usage() }
            exit(Soak(settings).run() ? 0 : 1)
        default:
            usage()
        }
    }

    static let usageText =
        "usage: JournalStress record JOURNAL LABEL CHANGES | fill JOURNAL [MAX_FILE_BYTES] | soak [--seconds S] [--threads T] [--journal PATH] [--registry-only] [--no-memory-check]"

    static func usage() -> Never {
        fail(usageText)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("JournalStress: " + message + "\n").utf8))
        exit(2)
    }

    /// One JSON object on one line on standard output.
    static func report(_ fields: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
