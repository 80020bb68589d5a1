import Foundation

/// The call sites the apps mark in their source with `// [site:NAME]`, as findings name
/// them in structured output (`FieldCorpus/ChatUnreadBadgeApp.swift:55`, the
/// `Module/File.swift:line` spelling of findings, views and exports), so expectations survive edits to the apps.
enum SiteMarkers {
    static let sites: [String: String] = {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/FieldCorpus")
        var sites: [String: String] = [:]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        for file in files where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let start = line.range(of: "// [site:") else { continue }
                let name = line[start.upperBound...].prefix { $0 != "]" }
                sites[String(name)] = "FieldCorpus/\(file):\(index + 1)"
            }
        }
        return sites
    }()

    /// The call site marked `name`; a missing marker reads as such in a failed expectation.
    static func site(_ name: String) -> String {
        sites[name] ?? "<no marker \(name)>"
    }
}
