import Foundation
import PackagePlugin

/// Compiles `Migrations/NNNN_name.sql` into the target as Swift string constants, so an
/// app or an installed `obsreplay` never needs the folder at run time.
@main
struct MigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        // Listed at every build, so adding a file changes the command and reruns it.
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations from Migrations/",
                executable: try context.tool(named: "MigrationsCompiler").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }
}
