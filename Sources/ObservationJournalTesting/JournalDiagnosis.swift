import Foundation
import JournalAnalysis
public import Testing

/// The diagnosis of recorded sessions, for an app's own tests: record a UI flow into a
/// journal, then fail the test on the observer bugs `obsreplay diagnose` would report, each
/// where it was made.
///
/// ```swift
/// JournalDiagnosis.expectNoFindings(inJournalAt: recording.path, session: recording.sessionID)
/// ```
///
/// A test and the CI gate agree: like `obsreplay diagnose`, the diagnosis reads
/// `.obsreplay.json` from the current directory or above (`swift test` runs in the
/// package's root), or the file `configuration` names, and leaves out the findings of a
/// `baseline` file. Reads the journal read-only (call it after the session's `close()`).
/// Thread-safe.
public enum JournalDiagnosis {
    /// The findings of one session at or above `minimum`, in the order `obsreplay diagnose`
    /// prints them, after the configuration and the baseline.
    /// - Parameters:
    ///   - path: the journal's file.
    ///   - session: the session's id (`RecordingSession.sessionID`).
    ///   - minimum: the least severity to report; `.warning` by default (infos are often
    ///     intended, such as registrations meant to live to the end).
    ///   - configuration: an `.obsreplay.json` file; `nil` looks for one from the current
    ///     directory upward, as `obsreplay diagnose` does.
    ///   - baseline: a file `obsreplay diagnose --write-baseline` (or `--json`) wrote; its
    ///     fingerprints are left out.
    ///   - budgetMs: the slow-callback budget, overriding the configuration's `budget-ms`
    ///     (as `--budget-ms` does); 16 ms when neither says.
    /// - Throws: `JournalDiagnosisError` when the journal, the session, the configuration or
    ///   the baseline cannot be used.
    public static func findings(
        inJournalAt path: String, session: Int64, minimum: FindingSeverity = .warning, configuration: String? = nil,
        baseline: String? = nil, budgetMs: Int64? = nil
    ) throws(JournalDiagnosisError) -> [ObserverFinding] {
        let settings: DiagnosisConfiguration
        let accepted: Baseline?
        do {
            var found = configuration
            // As `diagnose` looks it up: within the project, only the user's own file (one
            // another user could have planted or changed is not applied).
            if found == nil, case let .found(path) = DiagnosisConfiguration.find(from: FileManager.default.currentDirectoryPath) {
                found = path
            }
            settings = try found.map { (file) throws(ConfigurationError) in try DiagnosisConfiguration.load(path: file) }
                ?? DiagnosisConfiguration()
            accepted = try baseline.map { (file) throws(BaselineError) in try Baseline.load(path: file) }
        } catch {
            throw JournalDiagnosisError(description: "\(error)")
        }
        var options = DiagnosisOptions()
        if let budget = budgetMs ?? settings.budgetMs {
            let (nanoseconds, overflow) = budget.multipliedReportingOverflow(by: 1_000_000)
            guard budget >= 0, !overflow else {
                throw JournalDiagnosisError(description: "invalid slow-callback budget \(budget) ms")
            }
            options.slowCallbackBudgetNs = nanoseconds
        }
        do {
            let reader = try JournalReader(path: path)
            return try settings.apply(Diagnoser.diagnose(reader, session: try reader.session(session), options: options))
                .filter { $0.severity >= minimum.severity && accepted?.match($0) == nil }
                .map(ObserverFinding.init)
        } catch {
            throw JournalDiagnosisError(description: error.description)
        }
    }

    /// Records a Swift Testing issue for each finding of `findings(…)` with the same
    /// arguments, at the finding's call site in the app's source (found under the package
    /// of the calling test), so the failure shows on the line that registered or removed
    /// the observer, not on the test's. A finding with no call site in the package, or a
    /// journal that cannot be read, is recorded at the caller.
    /// - Returns: the findings, so a test may check more.
    @discardableResult
    public static func expectNoFindings(
        inJournalAt path: String, session: Int64, minimum: FindingSeverity = .warning, configuration: String? = nil,
        baseline: String? = nil, budgetMs: Int64? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [ObserverFinding] {
        let found: [ObserverFinding]
        do {
            found = try findings(
                inJournalAt: path, session: session, minimum: minimum, configuration: configuration, baseline: baseline,
                budgetMs: budgetMs
            )
        } catch {
            Issue.record(Comment(rawValue: "observer journal: \(error.description)"), sourceLocation: sourceLocation)
            return []
        }
        guard !found.isEmpty else { return [] }
        let root = packageRoot(of: sourceLocation.filePath)
        let locator = root.map { SourceLocator(root: $0) }
        for finding in found {
            let place = finding.callSites.lazy.compactMap { site in
                locator.flatMap { locator in location(of: site, in: locator) }
            }.first
            Issue.record(Comment(rawValue: finding.report), sourceLocation: place ?? sourceLocation)
        }
        return found
    }

    /// The test's package: the nearest directory above `file` holding a `Package.swift`.
    static func packageRoot(of file: String) -> String? {
        var url = URL(fileURLWithPath: file).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
            url.deleteLastPathComponent()
        }
        return nil
    }

    /// Where a call site (`Module/File.swift:42`) is in the package, if it is there.
    static func location(of callSite: String, in locator: SourceLocator) -> SourceLocation? {
        guard let found = locator.locate(callSite), found.line > 0 else { return nil }
        let path = URL(fileURLWithPath: locator.root).appendingPathComponent(found.path).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let file = URL(fileURLWithPath: path).lastPathComponent
        let module = callSite.split(separator: "/").dropLast().last.map(String.init)
            ?? URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        return SourceLocation(fileID: "\(module)/\(file)", filePath: path, line: found.line, column: 1)
    }
}
