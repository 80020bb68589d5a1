import Foundation
import JournalAnalysis
import Testing
import TestSupport

// README.md, checked: its shell commands run and exit as annotated, the output it shows
// is real, its Swift snippets are compiled by tests, its manifest resolves against this
// package, and its rule catalog is the rules'.

/// The package's root: this file is `Tests/ObsReplayCLITests/ReadmeTests.swift`.
private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A fenced block of the README: its language (`sh`, `text`, `swift`) and lines.
private struct Block {
    var language: String
    var lines: [String]
}

private func readme() throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
}

/// The README's fenced blocks, in order.
private func blocks() throws -> [Block] {
    var result: [Block] = []
    var current: Block?
    for line in try readme().components(separatedBy: "\n") {
        if line.hasPrefix("```") {
            if let block = current {
                result.append(block)
                current = nil
            } else {
                current = Block(language: String(line.dropFirst(3)), lines: [])
            }
        } else {
            current?.lines.append(line)
        }
    }
    return result
}

/// A command line of an `sh` block and the exit status it is annotated with
/// (`# exits 1`; none means 0).
private struct Command {
    var line: String
    var expectedStatus: Int32

    init(_ line: String) {
        self.line = line
        let annotation = line.firstMatch(of: /#\s*exits\s+([0-9]+)/)
        expectedStatus = annotation.flatMap { Int32($0.output.1) } ?? 0
    }

    var isSQLite: Bool { line.hasPrefix("sqlite3 ") }
    /// Commands the README shows that this test does not run (it runs inside them), with
    /// or without environment variables before them.
    var isNotRun: Bool { line.firstMatch(of: /^([A-Z_]+=\S* )*swift test( |$)/) != nil }

    /// The line with the `obsreplay` program replaced by the built binary.
    func runnable(binary: String) -> String? {
        for prefix in ["swift run obsreplay ", "obsreplay "] where line.hasPrefix(prefix) {
            return "'\(binary)' " + line.dropFirst(prefix.count)
        }
        return isSQLite ? line : nil
    }
}

private func commands(_ block: Block) -> [Command] {
    block.lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }.map(Command.init)
}

/// Runs `line` with `/bin/sh` in `directory`.
private func shell(_ line: String, in directory: URL) throws -> RunResult {
    try run(URL(fileURLWithPath: "/bin/sh"), ["-c", line], in: directory)
}

/// Output lines as compared: trailing spaces cut, call sites' line numbers as `#` (also in
/// GitHub annotations' `line=`), fingerprints (which hash the line numbers) as `#`.
private func comparable(_ text: String) -> [String] {
    text.components(separatedBy: "\n").map { line in
        var line = FindingShape.normalized(line)
            .replacingOccurrences(of: #",line=[0-9]+,"#, with: ",line=#,", options: .regularExpression)
            .replacingOccurrences(of: #"fingerprint [0-9a-f]{32}"#, with: "fingerprint #", options: .regularExpression)
        while line.last == " " { line.removeLast() }
        return line
    }
}

/// Checks that the lines of a `text` block appear in `output` in the same order (`…`
/// stands for lines left out; blank lines are not compared).
private func expectExcerpt(_ block: Block, in output: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = comparable(output)
    var position = 0
    for line in block.lines.flatMap(comparable) where !line.isEmpty && line != "…" {
        guard let index = actual[position...].firstIndex(of: line) else {
            Issue.record("README output line not found (in order) in the real output: \(line)", sourceLocation: sourceLocation)
            return
        }
        position = index + 1
    }
}

/// Runs the commands of every `sh` block (`sqlite3` ones only when `sqlite` is true, the
/// others only when it is false) in one directory, in order, and checks the exit codes
/// and the `text` blocks that follow. Returns the commands run.
private func runReadme(sqlite: Bool, in directory: URL) throws -> [String] {
    let binary = try obsreplayBinary().path
    var ran: [String] = []
    var lastOutput: String?
    var everything = ""
    for block in try blocks() {
        switch block.language {
        case "sh":
            let all = commands(block)
            lastOutput = all.contains { $0.isSQLite } == sqlite ? "" : nil
            for command in all where !command.isNotRun && command.isSQLite == sqlite {
                guard let runnable = command.runnable(binary: binary) else {
                    Issue.record("README command this test does not know how to run: \(command.line)")
                    continue
                }
                let result = try shell(runnable, in: directory)
                #expect(result.status == command.expectedStatus, "\(command.line)\n\(result)")
                // The one message a successful command prints: the configuration it applied.
                let notes = result.stderr.split(separator: "\n").filter { !($0.hasPrefix("note: configuration ") && $0.hasSuffix(" applied")) }
                if result.status == 0 { #expect(notes.isEmpty, "\(command.line)\n\(result)") }
                lastOutput? += result.stdout
                everything += result.stdout
                ran.append(command.line)
            }
        case "text":
            if let lastOutput { expectExcerpt(block, in: lastOutput) }
            // Excerpts are compared without fingerprints (they hash call sites' files), but a
            // fingerprint the README shows must be one the build computes, character for character.
            for line in block.lines {
                for match in line.matches(of: /fingerprint ([0-9a-f]{32})/) where lastOutput != nil {
                    #expect(everything.contains(String(match.output.1)), "README fingerprint \(match.output.1) is not what the build computes")
                }
            }
        case let language where language.hasPrefix("json "):
            // ```json .obsreplay.json: a file the commands after it find in their directory.
            let name = String(language.dropFirst("json ".count))
            try Data(block.lines.joined(separator: "\n").utf8).write(to: directory.appendingPathComponent(name))
        default:
            break
        }
    }
    return ran
}

@Test(.tags(.childProcess)) func readmeObsreplayCommandsExitAsAnnotatedAndShowRealOutput() throws {
    let ran = try runReadme(sqlite: false, in: try temporaryDirectory())
    // The first command makes the demo journal the others read; every command is shown.
    #expect(ran.first == "swift run obsreplay demo    # records five small apps (buggy and fixed) into obsreplay-demo.sqlite, diagnoses them")
    let subcommands = Set(ran.map { $0.split(separator: " ")[3] })
    #expect(subcommands == ["demo", "sessions", "timeline", "replay", "diagnose", "export", "report"])
}

private let hasSQLiteShell = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

@Test(.tags(.childProcess), .enabled(if: hasSQLiteShell, "the sqlite3 shell is not installed (.ci/run installs it)"))
func readmeSQLiteQueriesRunAgainstTheDemoJournal() throws {
    let directory = try temporaryDirectory()
    #expect(try obsreplay(["demo"], in: directory).status == 0)
    let ran = try runReadme(sqlite: true, in: directory)
    #expect(ran.count == 5)
}

@Test func readmeSwiftSnippetsAreCompiledByTests() throws {
    let tests = packageRoot.appendingPathComponent("Tests")
    let sources = try FileManager.default.subpathsOfDirectory(atPath: tests.path).filter { $0.hasSuffix(".swift") }
        .map { try String(contentsOf: tests.appendingPathComponent($0), encoding: .utf8) }
    let snippets = try blocks().filter { $0.language == "swift" && $0.lines.first?.hasPrefix("// swift-tools-version") != true }
    #expect(snippets.count == 8)
    for snippet in snippets {
        let imports = snippet.lines.filter { $0.hasPrefix("import ") }
        let body = snippet.lines.filter { !$0.hasPrefix("import ") }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
        let compiled = sources.first { source in
            source.contains(body) && imports.allSatisfy { source.components(separatedBy: "\n").contains($0) }
        }
        #expect(compiled != nil, "no test compiles this README snippet verbatim:\n\(body)")
    }
}

@Test(.skippedWhenQuick, .tags(.slow, .childProcess)) func readmeManifestResolvesAgainstThisPackage() throws {
    let manifest = try #require(try blocks().first { $0.language == "swift" && $0.lines.first?.hasPrefix("// swift-tools-version") == true })
    // The README's app sits beside the package, which it names by its directory's name.
    let directory = try temporaryDirectory()
    try FileManager.default.createSymbolicLink(
        at: directory.appendingPathComponent("ObservationJournal"), withDestinationURL: packageRoot
    )
    let app = directory.appendingPathComponent("MyApp")
    try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/MyApp"), withIntermediateDirectories: true)
    try manifest.lines.joined(separator: "\n").write(to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try "import ObservationJournal\n".write(to: app.appendingPathComponent("Sources/MyApp/main.swift"), atomically: true, encoding: .utf8)
    // Loading the package graph checks that the dependency has the product named.
    let result = try ChildProcess.run(ChildProcess.env, ["swift", "package", "show-dependencies", "--package-path", app.path])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("observationjournal<"), "\(result)")
}

@Test func readmeRuleCatalogIsTheRules() throws {
    let rows = try readme().components(separatedBy: "\n").filter { $0.hasPrefix("| OJ") }.map { row in
        row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    }
    #expect(rows == Rule.allCases.map { rule in
        [rule.code, rule.name, rule.severities.map(\.rawValue).joined(separator: ", "), rule.summary]
    })
}

/// The CI examples the README shows but cannot run (a GitHub Actions job, a plain shell
/// script): every `obsreplay` command in them uses only options `diagnose` has, and the
/// configuration file it shows is accepted.
@Test(.tags(.childProcess)) func readmeCIExamplesUseRealOptions() throws {
    let all = try blocks()
    let examples = all.filter { $0.language == "yaml" || $0.language == "bash" }
    #expect(examples.count == 2)
    let help = try obsreplay(["diagnose", "--help"]).stdout
    var checked = 0
    for line in examples.flatMap(\.lines) where line.contains("obsreplay diagnose") {
        for option in line.split(separator: " ") where option.hasPrefix("--") {
            #expect(help.contains("  \(option) ") || help.contains("  \(option)\n"), "\(option) in: \(line)")
            checked += 1
        }
    }
    #expect(checked == 7)
    for section in ["--baseline", "--write-baseline", "--format sarif", "--format github", "--format short", ".obsreplay.json"] {
        #expect(try readme().contains(section), "README's CI section shows \(section)")
    }
}

/// issue 28 item 6: the DocC catalogs' articles are the README's sections, word for word
/// (an article is `# Title`, a blank line, then the section's text; the README's heading
/// may number it: `### 2. Add it to your app`). Landing pages (`# ``Module```) are not.
@Test func docCArticlesAreTheReadmesSections() throws {
    let lines = try readme().components(separatedBy: "\n")
    /// The text under the heading titled `title`, up to the next heading of its level or above.
    func section(_ title: String) -> String? {
        for (index, line) in lines.enumerated() {
            guard let heading = line.firstMatch(of: /^(#+) (?:[0-9]+\. )?(.*)$/), heading.output.2 == title else { continue }
            var body: [String] = []
            var fenced = false
            for next in lines[(index + 1)...] {
                if next.hasPrefix("```") { fenced.toggle() }
                if !fenced, let other = next.firstMatch(of: #/^(#+) /#), other.output.1.count <= heading.output.1.count { break }
                body.append(next)
            }
            return body.joined(separator: "\n").trimmingCharacters(in: .newlines)
        }
        return nil
    }
    let sources = packageRoot.appendingPathComponent("Sources")
    var articles: [String] = []
    for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
        let catalog = sources.appendingPathComponent("\(module)/Documentation.docc")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
        for name in names.sorted() where name.hasSuffix(".md") {
            let text = try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)
            guard !text.hasPrefix("# ``") else { continue }
            let title = String(text.prefix { $0 != "\n" }.dropFirst(2))
            let body = text.drops(prefix: "# \(title)\n\n").trimmingCharacters(in: .newlines)
            #expect(body == section(title), "\(module)/\(name) is not the README's section '\(title)'")
            articles.append("\(module)/\(name)")
        }
    }
    #expect(articles == [
        "ObservationJournal/AddItToYourApp.md", "ObservationJournal/QueryTheJournal.md",
        "ObservationJournalTesting/DiagnoseInCI.md", "ObservationJournalTesting/TheRuleCatalog.md",
    ])
}

private extension String {
    /// The text after `prefix`, or all of it when it does not start so.
    func drops(prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}
