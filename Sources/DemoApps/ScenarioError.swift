/// Why a scenario could not run.
package enum ScenarioError: Error, CustomStringConvertible, Equatable {
    /// `run` was called on the main thread from inside work the main queue is already
    /// running, so the scenario's main-queue deliveries could never run: it stopped
    /// instead of waiting forever.
    case mainQueueNotServiced(scenario: String)

    /// One line saying what went wrong and what to do.
    package var description: String {
        switch self {
        case .mainQueueNotServiced(let scenario):
            "scenario \(scenario): the main queue is not being serviced; call run(variant:registry:) "
                + "from main.swift's top level or from a thread other than the main thread, "
                + "not from inside main-queue work"
        }
    }
}
