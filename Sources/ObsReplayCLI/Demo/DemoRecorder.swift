import SystemShim
import JournalAnalysis
import JournalStore
import ObservationJournal
import DemoApps

/// Records demo apps into a fresh demo journal, replacing a previous demo journal
/// and nothing else.
///
/// The journal is built beside its path and renamed into place only when every session
/// has been recorded and closed, so a failed run leaves the previous file as it was, and
/// readers never see a half-recorded demo.
package enum DemoRecorder {
    /// Where `obsreplay demo` writes when no `--journal` is given.
    package static let defaultPath = "obsreplay-demo.sqlite"

    /// Records each of `labels`, in order, as one session of a new journal at `path`.
    ///
    /// Call it on the main thread from `main.swift`'s top level (the scenarios' UI work
    /// then runs on the real main queue) or on any other thread.
    /// - Throws: `DemoError.notADemoJournal` or `.strayFile` if `path` may not be
    ///   replaced (checked before anything is recorded and again before the rename);
    ///   `.recording`, `.scenario` or `.fileSystem` if recording or the rename failed. On
    ///   every error, the file at `path` is as it was and nothing is left beside it.
    package static func record(_ labels: [DemoLabel], at path: String) throws(DemoError) {
        try checkReplaceable(path)
        let temporary = "\(path).demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var placed = false
        defer { if !placed { removeWithSideFiles(temporary) } }
        do {
            let journal = try Journal.open(path: temporary)
            for label in labels {
                let recording = try journal.startSession(label: label.description)
                do {
                    try label.scenario.run(variant: label.variant, registry: recording.registry)
                } catch {
                    recording.close()
                    throw DemoError.scenario(error)
                }
                recording.close()
                if let error = recording.lastError { throw error }
            }
        } catch let error as DemoError {
            throw error
        } catch {
            // The journal's message names the temporary file; the person asked for `path`.
            let text = "\(error)"
            throw .recording(path: path, detail: text.hasPrefix(temporary + ": ") ? String(text.dropFirst(temporary.count + 2)) : text)
        }
        // Every session is closed, so the new journal is one self-contained file. The
        // old journal's side files go first: left beside the new file, SQLite would
        // apply the old write-ahead log to it.
        try checkReplaceable(path)
        for suffix in SideFileCheck.suffixes where systemUnlink(path + suffix) != 0 && errno != ENOENT {
            throw .fileSystem(path: path + suffix, detail: "cannot remove: \(errorText(errno))")
        }
        guard systemRename(temporary, path) == 0 else {
            throw .fileSystem(path: path, detail: "cannot replace: \(errorText(errno))")
        }
        placed = true
    }

    /// Checks that `path` is free (nothing there, not even side files) or holds a demo
    /// journal. Reads the file read-only; never changes it.
    /// - Throws: `DemoError.notADemoJournal` naming why, or `.strayFile`.
    package static func checkReplaceable(_ path: String) throws(DemoError) {
        guard linkStatus(path) != nil else {
            guard errno == ENOENT else {
                throw .fileSystem(path: path, detail: "cannot inspect: \(errorText(errno))")
            }
            for suffix in SideFileCheck.suffixes where linkStatus(path + suffix) != nil {
                throw .strayFile(path: path + suffix)
            }
            return
        }
        let sessions: [SessionSummary]
        do {
            sessions = try JournalReader(path: path).sessions()
        } catch {
            throw .notADemoJournal(path: path, reason: reason(error, path: path))
        }
        guard !sessions.isEmpty else { throw .notADemoJournal(path: path, reason: "a journal with no sessions") }
        for session in sessions where DemoLabel(label: session.label) == nil || session.process != DemoLabel.process {
            throw .notADemoJournal(
                path: path, reason: "its session \(session.id), \"\(session.label)\", was not recorded by obsreplay demo"
            )
        }
    }

    /// Why the reader refused the file, without the path the message already names.
    private static func reason(_ error: AnalysisError, path: String) -> String {
        let text = error.description
        return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }

    private static func removeWithSideFiles(_ path: String) {
        for suffix in [""] + SideFileCheck.suffixes { systemUnlink(path + suffix) }
    }
}
