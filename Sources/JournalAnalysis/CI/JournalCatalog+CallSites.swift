extension JournalCatalog.CallSite {
    /// `Module/File.swift:42`: the spelling of findings' `call_sites`, exports and the
    /// journal's SQL views (`call_site_names.site`), so they can be joined.
    package var qualified: String { "\(file):\(line)" }
}

extension JournalCatalog {
    /// Each call site's short spelling (`File.swift:42`, what messages show) mapped to its
    /// qualified one (`Module/File.swift:42`). Two modules with a file of the same name
    /// and line map to the one whose qualified spelling sorts first.
    package func qualifiedCallSites() -> [String: String] {
        var map: [String: String] = [:]
        for site in callSites.values {
            let qualified = site.qualified
            if let existing = map[site.short], existing <= qualified { continue }
            map[site.short] = qualified
        }
        return map
    }

    /// Each call site's qualified spelling (`Module/File.swift:42`) mapped to the function
    /// it is in (`viewDidLoad()`); of two functions at one file and line (the journal keys
    /// call sites by all three), the one that sorts first.
    package func callSiteFunctions() -> [String: String] {
        var map: [String: String] = [:]
        for site in callSites.values where !site.function.isEmpty {
            let qualified = site.qualified
            if let existing = map[qualified], existing <= site.function { continue }
            map[qualified] = site.function
        }
        return map
    }
}

extension Finding {
    /// The finding with its call sites in the qualified spelling (`Module/File.swift:42`)
    /// and the function each one is in (`functions`, from `callSiteFunctions()`).
    package func qualifyingCallSites(_ map: [String: String], functions: [String: String] = [:]) -> Finding {
        var copy = self
        copy.callSites = callSites.map { map[$0] ?? $0 }.uniqued()
        for site in copy.callSites {
            if let function = functions[site] { copy.functions[site] = function }
        }
        return copy
    }
}

extension JournalCatalog {
    /// `Module/File.swift:42` (exports' `call_site` column), `site#7` when unknown.
    package func qualifiedCallSiteName(_ id: Int64?) -> String? {
        guard let id else { return nil }
        return callSites[id]?.qualified ?? "site#\(id)"
    }
}
