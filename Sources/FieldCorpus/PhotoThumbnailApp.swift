import Dispatch
import ObserverCore

/// A photo library decodes a thumbnail whenever an import finishes writing an image.
///
/// Buggy (the "scrolling stutters while importing" report): the grid decodes the thumbnail
/// in a callback delivered on the main queue, 30 ms of CPU each. Correct: the decoder asks
/// for delivery on its own background queue, where the same 30 ms of work belongs: a
/// background callback doing real work is not a dropped frame.
enum PhotoThumbnailApp {
    static let app = FieldApp(
        name: "photo-thumbnails",
        summary: "a photo library decodes a thumbnail for every imported image",
        bug: "the thumbnails are decoded in a main-queue callback",
        fix: "the decoder's callback is delivered on a background queue",
        expectedCodes: ["OJ010"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let importer = PhotoImporter(registry: registry)
        var grid: ThumbnailGrid? = ThumbnailGrid()
        script.ui { grid?.viewDidLoad(importer: importer, decodeOnMainQueue: variant == .buggy) }
        script.background { [importedCount = importer.importedCount] in
            for count in 1...3 { PhotoImporter.finishedWriting(importedCount, count) }
        }
        script.ui { grid?.waitForDecodes() }
        script.ui { grid = nil }
    }

    final class PhotoImporter {
        let registry: ObserverRegistry
        lazy var importedCount = ObservableValue(0, subject: self, key: "importedCount", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        /// Called on the import's thread after each image is written.
        static func finishedWriting(_ importedCount: ObservableValue<Int>, _ count: Int) {
            importedCount.set(count)
        }
    }

    final class ThumbnailGrid {
        private let decoding = DispatchQueue(label: "PhotoLibrary.thumbnails")
        private var observation: ObservationToken?

        func viewDidLoad(importer: PhotoImporter, decodeOnMainQueue: Bool) {
            let queue: DispatchQueue = decodeOnMainQueue ? .main : decoding
            observation = importer.importedCount.observe(owner: self, options: [.new], queue: queue) { _, _ in  // [site:decode]
                Workload.burnCPU(milliseconds: 30)  // decode and downscale one image
            }
        }

        /// The grid reloads once every queued decode is done.
        func waitForDecodes() {
            decoding.sync {}
        }
    }
}
