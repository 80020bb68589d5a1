import Foundation
import Testing

// Packaging rules that keep the package building beyond this machine.

/// The package's root directory.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every Swift file under `folder` (relative to the root), with its text.
private func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
    let base = packageRoot.appendingPathComponent(folder)
    return try FileManager.default.subpathsOfDirectory(atPath: base.path).filter { $0.hasSuffix(".swift") }.sorted().map {
        ("\(folder)/\($0)", try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8))
    }
}

@Test func onlyTheShimImportsACLibrary() throws {
    let files = try swiftFiles(under: "Sources") + swiftFiles(under: "tools") + swiftFiles(under: "Tests")
    let importing = files.filter { file in
        file.text.split(separator: "\n").contains { line in
            ["Glibc", "Musl", "Darwin"].contains { line.hasSuffix("import \($0)") }
        }
    }.map(\.path)
    #expect(importing == ["Sources/SystemShim/LibC.swift"])
}

@Test func thePackageHasNoBuildToolPlugin() throws {
    let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(!manifest.contains(".plugin("))
    #expect(!manifest.contains("plugins:"))
    #expect(!FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent("Plugins").path))
}

@Test func theLicenseIsApache2() throws {
    let license = try String(contentsOf: packageRoot.appendingPathComponent("LICENSE"), encoding: .utf8)
    #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
}
