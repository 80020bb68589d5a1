import ObserverCore

/// A video app's performance monitor aggregates frame-time samples from the render thread.
///
/// Buggy (the "app freezes while analytics uploads" report): the aggregator asks for its
/// samples on the main queue and, every 50 samples, uploads a report synchronously there,
/// blocking the main thread. Correct: the samples are aggregated where they arrive, on the
/// render thread, with a tiny callback; many of them, run under CPU load by
/// `tools/scripts/field-corpus-load.sh`, must never be called slow.
enum FrameMetricsApp {
    static let app = FieldApp(
        name: "frame-metrics",
        summary: "a video app's performance monitor aggregates frame-time samples from the render thread",
        bug: "the aggregator runs on the main queue and uploads its report synchronously there every 50 samples",
        fix: "tiny callbacks on the render thread, the upload elsewhere",
        expectedCodes: ["OJ010"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let renderer = Renderer(registry: registry)
        var monitor: PerformanceMonitor? = PerformanceMonitor()
        script.ui { monitor?.start(renderer: renderer, variant: variant) }
        let frames = variant == .buggy ? 100 : 2_000
        script.background { [frameTime = renderer.frameTime] in
            for frame in 0..<frames { Renderer.rendered(frameTime, milliseconds: 8 + Double(frame % 9)) }
        }
        script.ui { monitor = nil }
    }

    final class Renderer {
        let registry: ObserverRegistry
        lazy var frameTime = ObservableValue(0.0, subject: self, key: "lastFrameMilliseconds", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        /// Called on the render thread after each frame.
        static func rendered(_ frameTime: ObservableValue<Double>, milliseconds: Double) {
            frameTime.set(milliseconds)
        }
    }

    final class PerformanceMonitor {
        private var observation: ObservationToken?
        private var samples: [Double] = []
        private(set) var uploads = 0

        func start(renderer: Renderer, variant: FieldVariant) {
            if variant == .buggy {
                observation = renderer.frameTime.observe(owner: self, options: [.new], queue: .main) { monitor, change in  // [site:sample-main]
                    monitor.record(change.new ?? 0, uploadEvery: 50)
                }
            } else {
                observation = renderer.frameTime.observe(owner: self, options: [.new]) { monitor, change in  // [site:sample]
                    monitor.record(change.new ?? 0, uploadEvery: nil)
                }
            }
        }

        private func record(_ sample: Double, uploadEvery: Int?) {
            samples.append(sample)
            guard let uploadEvery, samples.count % uploadEvery == 0 else { return }
            Workload.block(milliseconds: 40)  // a synchronous upload
            uploads += 1
        }
    }
}
