import Foundation
import ObservationJournal
import Testing
import TestSupport

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

/// A build-tool plugin runs in every build of every package that depends on this one (code
/// users would have to trust); the one plugin is a command plugin, run only when asked.
@Test func thePackageHasNoBuildToolPlugin() throws {
    let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(!manifest.contains(".buildTool"))
    #expect(!manifest.contains("plugins:"))
    #expect(manifest.components(separatedBy: "capability: .command(").count - 1 == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Plugins").path) == ["ObsReplayPlugin"])
}

@Test func theLicenseIsApache2() throws {
    let license = try String(contentsOf: packageRoot.appendingPathComponent("LICENSE"), encoding: .utf8)
    #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
}

/// Declarations of the products' public API without a `///` comment just above (attributes
/// may sit between), as `path:line: declaration`. Counted as public: `public`/`open`
/// declarations (not imports or extensions) and the cases of public enums.
private func undocumentedPublicSymbols(in folder: URL, named name: String) throws -> [String] {
    var missing: [String] = []
    let declaration = /^\s*(@[\w.]+(\([^)]*\))?\s+)*(public|open)\s+(?!import\b)(?!extension\b)/
    let publicEnum = /^\s*(@[\w.]+(\([^)]*\))?\s+)*public\s+(indirect\s+)?enum\s/
    let paths = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
    for path in paths {
        let file = (path: "\(name)/\(path)", text: try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8))
        let lines = file.text.components(separatedBy: "\n")
        var depth = 0
        var enumDepths: [Int] = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let isCase = enumDepths.last == depth && trimmed.hasPrefix("case ")
            if line.firstMatch(of: declaration) != nil || isCase {
                var above = index - 1
                while above >= 0 && lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let comment = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                if !comment.hasPrefix("///") && !comment.hasSuffix("*/") { missing.append("\(file.path):\(index + 1): \(trimmed)") }
            }
            if line.firstMatch(of: publicEnum) != nil { enumDepths.append(depth + 1) }
            // Braces in strings and comments are rare in declarations' files; counted naively.
            for character in line {
                if character == "{" { depth += 1 }
                if character == "}" {
                    if enumDepths.last == depth { enumDepths.removeLast() }
                    depth -= 1
                }
            }
        }
    }
    return missing
}

/// issue 28 item 6: `swift package generate-documentation` needs the swift-docc-plugin
/// package, which cannot be fetched here, so this checks what DocC would show: every public
/// symbol of the products says what it guarantees.
@Test func everyPublicSymbolOfTheProductsHasADocComment() throws {
    for module in ["ObserverCore", "ObservationJournal", "ObservationJournalTesting"] {
        let folder = packageRoot.appendingPathComponent("Sources/\(module)")
        #expect(try undocumentedPublicSymbols(in: folder, named: "Sources/\(module)") == [], "\(module)")
    }
}

/// The checker finds what it must: a public symbol without a comment, a case of a public
/// enum without one; and passes a documented one.
@Test func theDocCommentCheckFindsAnUndocumentedSymbol() throws {
    let scratch = try ScratchDirectory()
    let folder = scratch.url
    try Data("""
        /// Documented.
        public enum Mode {
            /// Documented.
            case a
            case b
        }

        @available(*, deprecated)
        public func undocumented() {}

        /// Documented.
        @inlinable
        public func documented() {}
        """.utf8).write(to: folder.appendingPathComponent("Probe.swift"))
    #expect(try undocumentedPublicSymbols(in: folder, named: "Probe") == [
        "Probe/Probe.swift:5: case b",
        "Probe/Probe.swift:9: public func undocumented() {}",
    ])
}

/// issue 28 item 6: one version, `Journal.libraryVersion` (what `obsreplay --version` prints
/// and sessions record), is the latest release of CHANGELOG.md and the one the README tells
/// `.package(url:from:)` to use; the release is the git tag of that name.
@Test func theVersionIsTheChangelogsLatestReleaseAndTheReadmes() throws {
    let changelog = try String(contentsOf: packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let released = changelog.components(separatedBy: "\n").compactMap { line in
        line.firstMatch(of: /^## \[([0-9]+\.[0-9]+\.[0-9]+)\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$/).map { String($0.output.1) }
    }
    #expect(released.first == Journal.libraryVersion)
    #expect(Journal.libraryVersion.firstMatch(of: /^[0-9]+\.[0-9]+\.[0-9]+$/) != nil)
    let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let froms = readme.matches(of: /from: "([^"]+)"/).map { String($0.output.1) }
    #expect(!froms.isEmpty && froms.allSatisfy { $0 == Journal.libraryVersion }, "\(froms)")
}
