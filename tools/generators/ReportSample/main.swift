// Writes the journals that tools/scripts/report-browser-check.sh renders in headless Chromium:
//
//   ReportSample showcase PATH           the showcase session (JournalFixtures.ShowcaseScenario)
//   ReportSample synthetic PATH EVENTS   one session of the obsreplay benchmark's mix
import Foundation
import JournalFixtures

func sampleMain(_ arguments: [String]) -> Int32 {
    do {
        switch (arguments.first, arguments.count) {
        case ("--help", 1), ("-h", 1):
            print("usage: ReportSample showcase PATH | synthetic PATH EVENTS")
        case ("showcase", 2):
            try ShowcaseScenario.write(to: arguments[1])
        case ("synthetic", 3):
            guard let events = Int(arguments[2]), events > 0 else { return usage() }
            try SyntheticWorkload.write(to: arguments[1], events: events)
        default:
            return usage()
        }
    } catch {
        FileHandle.standardError.write(Data("ReportSample: \(error)\n".utf8))
        return 1
    }
    return 0
}

func usage() -> Int32 {
    FileHandle.standardError.write(Data("usage: ReportSample showcase PATH | synthetic PATH EVENTS\n".utf8))
    return 64
}

exit(sampleMain(Array(CommandLine.arguments.dropFirst())))
