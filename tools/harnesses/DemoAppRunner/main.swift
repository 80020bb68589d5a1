// Runs one demo app on the main thread and prints its events, one `EventLine` a
// line. Tests run it as a child process: under `swift test` no code runs on the main
// thread, and this is how they see what the demo will record from `main.swift`.
//
// With `--inside-main-queue-work` it calls the scenario from a block the main queue is
// running, where its main-queue deliveries could never run: the scenario must fail with
// an error instead of hanging.
import Foundation
import ObserverCore
import DemoApps

func runnerMain(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2, let scenario = DemoApp.named(arguments[0]),
        let variant = ScenarioVariant(rawValue: arguments[1])
    else {
        let names = DemoApp.all.map(\.name).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: DemoAppRunner [--inside-main-queue-work] \(names) buggy|fixed\n".utf8))
        return 2
    }
    let sink = InMemoryEventSink()
    do {
        try scenario.run(variant: variant, registry: ObserverRegistry(sink: sink))
    } catch {
        FileHandle.standardError.write(Data("DemoAppRunner: \(error)\n".utf8))
        return 1
    }
    for line in EventLine.lines(of: sink.events) { print(line) }
    return 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] {
    let names = DemoApp.all.map(\.name).joined(separator: "|")
    print("usage: DemoAppRunner [--inside-main-queue-work] \(names) buggy|fixed")
    exit(0)
}
if arguments.first == "--inside-main-queue-work" {
    DispatchQueue.main.async { exit(runnerMain(Array(arguments.dropFirst()))) }
    RunLoop.main.run()
}
exit(runnerMain(arguments))
