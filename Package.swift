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
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "ObserverCore", swiftSettings: strict),
        .testTarget(name: "ObserverCoreTests", dependencies: ["ObserverCore"], swiftSettings: strict),
        .executableTarget(
            name: "RegistryBenchmark", dependencies: ["ObserverCore"], path: "tools/RegistryBenchmark",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
