import Foundation
import Testing
import TestSupport

// issue 15 §5: what people expect of a command-line tool, end to end.

@Test(.tags(.childProcess)) func timelineOwnerTakesTheTypeIdSpellingTheToolPrints() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try demoJournal(in: directory)
    let seqs = { (owner: String) throws -> [String] in
        try obsreplay(["timeline", path, "--session", "1", "--owner", owner]).stdout.split(separator: "\n").map {
            String($0.split(separator: " ").first ?? "")
        }
    }
    #expect(try seqs("VideoScreen#3") == ["6", "8", "10"])
    #expect(try seqs("VideoScreen") == ["6", "8", "10"])
    #expect(try seqs("FloatingWindow#2") == ["1", "3", "5"])
    #expect(try seqs("VideoScreen#2") == [])
    #expect(try seqs("#3") == [])
}

@Test(.tags(.childProcess)) func bashCompletionCompletesSubcommandsFlagsAndValues() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let script = try obsreplay(["completions", "bash"])
    #expect(script.status == 0 && script.stderr.isEmpty)
    try Data(script.stdout.utf8).write(to: directory.appendingPathComponent("obsreplay.bash"))
    // Sourced in a real bash, as a user's shell would, then asked what it completes.
    let probe = """
        source ./obsreplay.bash
        complete -p obsreplay
        t() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _obsreplay; echo "[${COMPREPLY[*]}]"; }
        t obsreplay diag
        t obsreplay diagnose j.sqlite --base
        t obsreplay diagnose --format s
        t obsreplay export j.sqlite --what d
        t obsreplay timeline --color n
        t obsreplay help com
        t obsreplay completions ""
        t obsreplay completions z
        """
    let result = try run(URL(fileURLWithPath: "/bin/bash"), ["-c", probe], in: directory)
    #expect(result == RunResult(stdout: """
        complete -o filenames -F _obsreplay obsreplay
        [diagnose]
        [--baseline]
        [short sarif]
        [deliveries]
        [never]
        [completions]
        [bash zsh fish]
        [zsh]

        """, stderr: "", status: 0))
    for shell in ["zsh", "fish"] {
        let other = try obsreplay(["completions", shell])
        #expect(other.status == 0)
        #expect(other.stdout.contains("diagnose"))
        #expect(other.stdout.contains(shell == "zsh" ? "'--format[" : "-l format -x -a 'text short github sarif junit json'"))
        // `obsreplay completions <TAB>` offers the shells.
        #expect(other.stdout.contains(shell == "zsh"
            ? "    completions)\n      _arguments \\\n" : "__fish_seen_subcommand_from completions' -a 'bash zsh fish'"))
        #expect(!(shell == "zsh") || other.stdout.contains("        '1:shell:(bash zsh fish)'\n"))
    }
    #expect(try obsreplay(["completions", "tcsh"]).stderr.hasPrefix("error: invalid value 'tcsh' for <shell>: expected one of bash, zsh, fish"))
}

@Test(.tags(.childProcess)) func colourFollowsTheColorFlagAndNoColor() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try demoJournal(in: directory)
    let plain = try obsreplay(["diagnose", path, "--session", "1"])
    #expect(!plain.stdout.contains("\u{1B}["))
    let always = try obsreplay(["diagnose", path, "--session", "1", "--color", "always"])
    #expect(always.stdout.hasPrefix("\u{1B}[1;31merror\u{1B}[0m[OJ001] last-callback-wins (session 1): "))
    #expect(always.stdout.replacingOccurrences(of: "\u{1B}[1;31m", with: "").replacingOccurrences(of: "\u{1B}[36m", with: "")
        .replacingOccurrences(of: "\u{1B}[0m", with: "") == plain.stdout)
    // An explicit --color always wins over NO_COLOR; --color=never and NO_COLOR turn it off.
    #expect(try obsreplay(["--color=always", "diagnose", path, "--session", "1"], environment: ["NO_COLOR": "1"]).stdout == always.stdout)
    #expect(try obsreplay(["diagnose", path, "--session", "1", "--color=never"]).stdout == plain.stdout)
    #expect(try obsreplay(["diagnose", path, "--color", "nevr"]) == RunResult(stdout: "", stderr: """
        error: invalid value 'nevr' for '--color': expected one of auto, always, never; did you mean 'never'?
        Usage: obsreplay <subcommand> [--color <when>]
          See 'obsreplay --help' for more information.

        """, status: 64))
}

/// `tools/` is sorted by role, and every executable and script in it answers `--help`:
/// usage on standard output, exit 0, nothing started, nothing written.
@Test(.tags(.childProcess)) func everyToolAnswersHelp() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let binaries = try obsreplayBinary().deletingLastPathComponent()
    let scratch = try ScratchDirectory("tool-help")
    let directory = scratch.url
    let toolsFolder = root.appendingPathComponent("tools")
    #expect(try FileManager.default.contentsOfDirectory(atPath: toolsFolder.path).sorted()
        == ["benchmarks", "generators", "harnesses", "scripts"])
    var checked: [String] = []
    for role in ["benchmarks", "generators", "harnesses", "scripts"] {
        let folder = toolsFolder.appendingPathComponent(role)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let path = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory)
            let result: RunResult
            if isDirectory.boolValue {
                // A Swift executable target (tools/ROLE/Name/*.swift) built as Name, an
                // UpperCamelCase target name; python-checks holds data.
                guard try FileManager.default.contentsOfDirectory(atPath: path.path).contains(where: { $0.hasSuffix(".swift") })
                else { continue }
                #expect(name.first?.isUppercase == true && !name.contains("-"), "target name \(name)")
                result = try run(binaries.appendingPathComponent(name), ["--help"], in: directory)
            } else if name.hasSuffix(".sh") {
                result = try run(URL(fileURLWithPath: "/bin/bash"), [path.path, "--help"], in: directory)
            } else if name.hasSuffix(".py") {
                result = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", path.path, "--help"], in: directory)
            } else {
                continue
            }
            #expect(result.status == 0, "\(role)/\(name): \(result)")
            #expect(result.stdout.lowercased().contains("usage") || result.stdout.count > 80, "\(role)/\(name): \(result)")
            checked.append("\(role)/\(name)")
        }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    #expect(checked.count == 27, "\(checked)")
}
