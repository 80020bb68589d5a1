// swift-tools-version: 6.0
import PackageDescription

// Strictness for every target: Swift 6 language mode (strict concurrency) plus
// upcoming features that keep the public surface honest.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ObservationJournal",
    products: [
        .library(name: "ObserverCore", targets: ["ObserverCore"]),
        .library(name: "ObservationJournal", targets: ["ObservationJournal"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "ObserverCore", swiftSettings: strict),
        .target(name: "ObservationJournal", dependencies: ["CSQLite", "ObserverCore"], swiftSettings: strict),
        .testTarget(name: "ObserverCoreTests", dependencies: ["ObserverCore"], swiftSettings: strict),
        .target(name: "SeedScenarios", dependencies: ["ObserverCore"], swiftSettings: strict),
        .testTarget(
            name: "SeedScenariosTests", dependencies: ["SeedScenarios", "SeedScenarioRunner"], swiftSettings: strict
        ),
        .executableTarget(
            name: "SeedScenarioRunner", dependencies: ["ObserverCore", "SeedScenarios"],
            path: "tools/SeedScenarioRunner", swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
