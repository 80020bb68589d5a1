import Foundation
import PackagePlugin

/// `swift package obsreplay <subcommand> …`: runs this package's `obsreplay` (built by
/// SwiftPM for the plugin) in the package's directory, with the arguments as given, so an
/// app's package can diagnose its journals without `swift run` or an installed tool.
///
/// A command plugin, never a build-tool plugin: it runs only when asked. Its output is the
/// tool's; a non-zero exit (1 for findings, 2 for unusable input, 64 for usage) makes
/// `swift package` fail, and the reason is named. Commands that write files (`demo`,
/// `export -o`, `diagnose --write-baseline`) need SwiftPM's
/// `--allow-writing-to-package-directory` where SwiftPM sandboxes plugins (macOS).
@main
struct ObsReplayPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "obsreplay")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let meaning = [1: "findings at or above --fail-on", 2: "the input could not be used", 64: "usage error"]
            let status = process.terminationStatus
            Diagnostics.error(
                "obsreplay exited with status \(status)" + (meaning[Int(status)].map { " (\($0))" } ?? "")
            )
            return
        }
    }
}
