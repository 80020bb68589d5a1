import Foundation
import ObsReplayCLI

// Everything lives in ObsReplayCLI so tests can reach it; this only hands over.
exit(ObsReplay.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
