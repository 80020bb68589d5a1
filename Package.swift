// swift-tools-version: 6.2
// 6.2, the oldest compiler that builds the products: `weak let` (SE-0481) is Swift 6.2. The
// tests also call Swift Testing's `Test.cancel` (Swift 6.3); CI builds with 6.3 (README,
// "Platforms").
import PackageDescription

// Strictness for every target: Swift 6 language mode (strict concurrency) plus
// upcoming features that keep the public surface honest.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
// Targets that hold no unsafe code of their own: under strict memory safety, an unsafe
// construct is an error unless marked `unsafe` where it is used. Unsafe code lives in the
// targets that need it (the registry's ring and payloads, the SQLite handles, file
// descriptors), behind safe APIs.
let safe: [SwiftSetting] = strict + [.strictMemorySafety(), .treatWarning("StrictMemorySafety", as: .error)]

let package = Package(
    name: "ObservationJournal",
    // The floor is set by `Synchronization` (`Atomic`, `Mutex`), used by the registry and the
    // recorder: macOS 15, iOS 18 and their siblings. No API newer than these floors may be
    // used without `@available`: tools/scripts/availability-check.py (run by .ci/run) checks
    // every Swift file against the toolchain's own availability annotations. Linux has no
    // floor here. Where each platform is built and tested: README, "Platforms".
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "ObserverCore", targets: ["ObserverCore"]),
        .library(name: "ObservationJournal", targets: ["ObservationJournal"]),
        // For an app's tests: fail a recorded UI test on the findings of its journal.
        .library(name: "ObservationJournalTesting", targets: ["ObservationJournalTesting"]),
        .executable(name: "obsreplay", targets: ["obsreplay"]),
        // `swift package obsreplay diagnose …` from an app's package.
        .plugin(name: "ObsReplayPlugin", targets: ["ObsReplayPlugin"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The one libc shim (Glibc, Musl or Darwin); every module imports it, none imports
        // a C library directly.
        .target(name: "SystemShim", swiftSettings: strict),
        // The registry's per-thread context pointer in C thread-local storage (Swift has no
        // thread-locals): read on every recorded post, cheaper than `pthread_getspecific`.
        .target(name: "CThreadContext"),
        .target(name: "ObserverCore", dependencies: ["SystemShim", "CThreadContext"], swiftSettings: strict),
        // What every reader and the recorder share: the SQLite wrapper, opening and validating
        // journal files, the migrations and the journal's typed vocabulary. Not a product.
        // The schema, Migrations/NNNN_name.sql, is embedded as checked-in generated code
        // (EmbeddedMigrations.swift; SchemaTests checks it against the folder), not by a
        // build-tool plugin that every user of the package would have to trust.
        .target(name: "JournalStore", dependencies: ["CSQLite", "CEventBatch", "SystemShim"], swiftSettings: strict),
        // The writer's staged rows as a virtual table SQLite reads in place (`StagedEvents`).
        .target(name: "CEventBatch", dependencies: ["CSQLite"]),
        .target(
            name: "ObservationJournal", dependencies: ["JournalStore", "CSQLite", "ObserverCore", "SystemShim", "CThreadContext"],
            swiftSettings: strict
        ),
        // Regenerates EmbeddedMigrations.swift from Migrations/ (see its header).
        .executableTarget(name: "MigrationsCompiler", path: "tools/generators/MigrationsCompiler", swiftSettings: strict),
        .executableTarget(
            name: "JournalCrashHelper", dependencies: ["ObservationJournal", "ObserverCore"],
            path: "tools/harnesses/JournalCrashHelper", swiftSettings: strict
        ),
        // Child processes and the soak of the reliability harnesses (RELIABILITY.md).
        .executableTarget(
            name: "JournalStress", dependencies: ["ObservationJournal", "ObserverCore", "JournalAnalysis", "JournalFixtures", "SystemShim"],
            path: "tools/harnesses/JournalStress", swiftSettings: strict
        ),
        // JournalBenchmark's raw ceiling: the writer's INSERT driven from C (no Swift in the loop).
        .target(name: "CRawCeiling", dependencies: ["CSQLite", "CEventBatch"], path: "tools/benchmarks/CRawCeiling"),
        .executableTarget(
            name: "JournalBenchmark",
            dependencies: ["ObservationJournal", "ObserverCore", "JournalFixtures", "JournalStore", "SystemShim", "CSQLite", "CRawCeiling"],
            path: "tools/benchmarks/JournalBenchmark", swiftSettings: strict
        ),
        // What the tests share (scratch directories that remove themselves, the child-process
        // runner, SQLite row helpers, SplitMix64 from JournalFixtures, the tags); package-only.
        .target(name: "TestSupport", dependencies: ["JournalFixtures", "ObservationJournal", "SystemShim"], swiftSettings: safe),
        .testTarget(name: "ObserverCoreTests", dependencies: ["ObserverCore", "SystemShim", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "JournalStoreTests", dependencies: ["JournalStore"], swiftSettings: strict),
        // Written as an app would be, against the public API only: the README's adoption
        // snippets, a main-actor view model, async loops, a NotificationCenter app.
        .testTarget(
            name: "AdoptionTests",
            dependencies: ["ObservationJournal", "ObservationJournalTesting", "ObserverCore", "JournalAnalysis", "TestSupport"],
            swiftSettings: strict
        ),
        .target(name: "JournalAnalysis", dependencies: ["JournalStore", "SystemShim"], swiftSettings: strict),
        // The page's script and stylesheet are real files, compiled into the module as
        // byte arrays (`PackageResources.report_js`): the report stays one self-contained file.
        .target(
            name: "JournalReport", dependencies: ["JournalAnalysis", "JournalStore"],
            resources: [.embedInCode("Resources/report.js"), .embedInCode("Resources/report.css")], swiftSettings: safe
        ),
        .target(name: "ObservationJournalTesting", dependencies: ["JournalAnalysis"], swiftSettings: safe),
        .target(
            name: "ObsReplayCLI",
            dependencies: ["JournalAnalysis", "JournalReport", "JournalStore", "ObservationJournal", "DemoApps", "SystemShim"],
            swiftSettings: safe
        ),
        .executableTarget(name: "obsreplay", dependencies: ["ObsReplayCLI"], swiftSettings: safe),
        // A command plugin (it runs only when asked, never during a build) that runs obsreplay.
        .plugin(
            name: "ObsReplayPlugin",
            capability: .command(intent: .custom(verb: "obsreplay", description: "Run obsreplay: diagnose, export, report… journals.")),
            dependencies: ["obsreplay"]
        ),
        // Writes fixture journals row by row (tests, benchmarks); not a product.
        .target(name: "JournalFixtures", dependencies: ["JournalStore"], swiftSettings: safe),
        .executableTarget(
            name: "ObsReplayBenchmark", dependencies: ["JournalFixtures"], path: "tools/benchmarks/ObsReplayBenchmark",
            swiftSettings: strict
        ),
        .target(name: "DemoApps", dependencies: ["ObserverCore"], swiftSettings: safe),
        .testTarget(
            name: "DemoAppsTests", dependencies: ["DemoApps", "DemoAppRunner", "TestSupport"], swiftSettings: strict
        ),
        .executableTarget(
            name: "DemoAppRunner", dependencies: ["ObserverCore", "DemoApps"],
            path: "tools/harnesses/DemoAppRunner", swiftSettings: strict
        ),
        // Small apps written against the public API with planted observer bugs and correct
        // twins (issue 11's field corpus); each variant runs in its own runner process.
        .target(name: "FieldCorpus", dependencies: ["ObserverCore", "SystemShim"], swiftSettings: safe),
        .executableTarget(
            name: "FieldCorpusRunner", dependencies: ["FieldCorpus", "ObservationJournal"],
            path: "tools/harnesses/FieldCorpusRunner", swiftSettings: strict
        ),
        .testTarget(
            name: "FieldCorpusTests", dependencies: ["FieldCorpus", "FieldCorpusRunner", "JournalAnalysis", "TestSupport"],
            swiftSettings: strict
        ),
        // Depends on MainLoopProbe only so that `swift test` builds it: the main-loop and
        // load tests run it as a child process (found next to the test bundle).
        .testTarget(
            name: "JournalAnalysisTests",
            dependencies: ["JournalAnalysis", "JournalFixtures", "ObservationJournal", "MainLoopProbe", "TestSupport"],
            swiftSettings: strict
        ),
        // Records small programs under RunLoop.main.run() or dispatchMain() (issue 11).
        .executableTarget(
            name: "MainLoopProbe", dependencies: ["ObservationJournal", "ObserverCore"],
            path: "tools/harnesses/MainLoopProbe",
            swiftSettings: strict
        ),
        .testTarget(
            name: "JournalReportTests", dependencies: ["JournalReport", "JournalAnalysis", "JournalFixtures", "TestSupport"],
            swiftSettings: strict
        ),
        // Writes the journals tools/scripts/report-browser-check.sh renders in headless Chromium.
        .executableTarget(
            name: "ReportSample", dependencies: ["JournalFixtures"], path: "tools/generators/ReportSample",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ObsReplayCLITests",
            dependencies: [
                "ObsReplayCLI", "JournalAnalysis", "JournalFixtures", "ObservationJournal", "DemoApps", "obsreplay", "SystemShim",
                "TestSupport",
            ],
            swiftSettings: strict
        ),
        // Depends on JournalCrashHelper, JournalStress and MigrationsCompiler only so that
        // `swift test` builds them: the crash, full-disk, two-process and schema tests run
        // the binaries (found next to the test bundle).
        .testTarget(
            name: "ObservationJournalTests",
            dependencies: [
                "ObservationJournal", "ObserverCore", "JournalCrashHelper", "JournalStress", "MigrationsCompiler", "TestSupport",
                "JournalFixtures",
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "RegistryBenchmark", dependencies: ["ObserverCore", "ObservationJournal", "JournalFixtures", "SystemShim"],
            path: "tools/benchmarks/RegistryBenchmark",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
