/// The page's script and stylesheet: `Resources/report.js` and `Resources/report.css`,
/// embedded in the module at build time (SwiftPM `.embedInCode`), so the report needs no
/// file beside the binary and no network.
///
/// The script reaches journal text only through `textContent` and `setAttribute`, never as
/// markup; the page's Content-Security-Policy lets only these two nonce-carrying elements run.
enum ReportAssets {
    static let javascript = String(decoding: PackageResources.report_js, as: UTF8.self)
    static let css = String(decoding: PackageResources.report_css, as: UTF8.self)
}
