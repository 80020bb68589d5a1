/// The report's stylesheet, inlined into the page (no network, no external fonts: system
/// font stacks only).
enum ReportStyle {
    static let css = #"""
:root {
  --ink: #1f2430; --muted: #5c6370; --line: #d8dce3; --panel: #f6f7f9; --accent: #f77f00;
  --explicit: #2b7bb9; --token: #2a9d8f; --deallocated: #7d8590; --replaced: #e76f51; --live: #c1121f; --other: #9b5de5;
  --mark: #1d3557; --offmain: #e63946; --slow: #7b2cbf; --tick: #30343f; --gap: #ff9f1c;
}
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; }
header.top { padding: 10px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top h1 { font-size: 17px; margin: 0 0 2px; }
header.top .source { margin: 0; color: var(--muted); word-break: break-all; }
nav.sessions { margin-top: 8px; display: flex; flex-wrap: wrap; gap: 6px; }
nav.sessions button { border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 3px 9px; cursor: pointer; font: inherit; }
nav.sessions button.current { border-color: var(--accent); box-shadow: inset 0 -2px 0 var(--accent); }
#js-errors { margin: 8px 16px; padding: 8px 12px; border: 1px solid var(--offmain); background: #fff0f0; }
section.session { padding: 10px 16px 24px; }
.summary h2 { font-size: 15px; margin: 0 0 4px; }
.summary dl { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 0; }
.summary dl div { display: flex; gap: 5px; }
.summary dt { color: var(--muted); }
.summary dd { margin: 0; }
.summary .unclean { color: var(--live); font-weight: 600; }
.layout { display: flex; gap: 14px; align-items: flex-start; margin-top: 10px; }
.chart-panel { flex: 1 1 auto; min-width: 0; }
aside.findings { flex: 0 0 360px; max-height: calc(100vh - 40px); overflow: auto; position: sticky; top: 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
aside.findings h3 { margin: 0; padding: 8px 12px; font-size: 14px; border-bottom: 1px solid var(--line); background: var(--panel); position: sticky; top: 0; }
aside.findings ol { list-style: none; margin: 0; padding: 0; }
details.rule-group { border-bottom: 1px solid var(--line); }
details.rule-group summary { padding: 6px 12px; cursor: pointer; background: #fbfbfc; }
details.rule-group summary .rule { font-weight: 600; }
details.rule-group summary .count { float: right; color: var(--muted); font-variant-numeric: tabular-nums; }
details.rule-group.sev-error summary code { color: var(--offmain); }
details.rule-group.sev-warning summary code { color: #b7791f; }
details.rule-group.sev-info summary code { color: var(--explicit); }
aside.findings p.more, aside.findings p.none { margin: 0; padding: 6px 12px; color: var(--muted); }
li.finding a.link { color: var(--muted); text-decoration: none; margin-left: auto; }
li.finding { padding: 8px 12px; border-top: 1px solid var(--line); cursor: pointer; border-left: 4px solid transparent; }
li.finding:hover { background: #fafbfc; }
li.finding.selected { background: #fff7e6; border-left-color: var(--accent); }
li.finding .head { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
li.finding .sev { font-weight: 700; text-transform: uppercase; font-size: 11px; }
li.finding.sev-error .sev { color: var(--offmain); }
li.finding.sev-warning .sev { color: #b7791f; }
li.finding.sev-info .sev { color: var(--explicit); }
li.finding .rule { font-weight: 600; }
li.finding p { margin: 4px 0; word-break: break-word; }
li.finding ul.evidence { margin: 2px 0 4px; padding-left: 16px; color: var(--muted); word-break: break-word; }
li.finding .fix { color: var(--muted); }
li.finding .cites { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
button.cite { font: 11px/1.4 ui-monospace, Menlo, Consolas, monospace; border: 1px solid var(--line); background: #fff; border-radius: 3px; padding: 0 5px; cursor: pointer; color: var(--ink); }
button.cite:hover, button.cite.active { border-color: var(--accent); background: #fff1db; }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; }
.toolbar button { font: inherit; border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 2px 9px; cursor: pointer; }
.toolbar .range { font-variant-numeric: tabular-nums; }
.toolbar .hint { color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 6px; color: var(--muted); font-size: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.legend svg { vertical-align: middle; }
.chart-frame { border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
svg.axis { display: block; background: var(--panel); border-bottom: 1px solid var(--line); }
.chart-scroll { max-height: calc(100vh - 150px); min-height: 160px; overflow: auto; }
svg.chart { display: block; user-select: none; cursor: crosshair; }
svg text { font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--ink); }
svg .axis-label { fill: var(--muted); font-variant-numeric: tabular-nums; }
svg .gridline { stroke: #eef0f3; }
svg .axis-tick { stroke: #9aa1ab; }
svg .group-bg { fill: #f3f5f8; }
svg .channel .axis-line { stroke: #b9bfc8; }
svg .channel-label { font-weight: 600; }
svg .channel.hl .group-bg, svg .channel.hl .row-bg { fill: #ffe8c2; }
svg .lane-label { fill: #3a3f4a; }
svg .flag { fill: var(--accent); }
svg .scope-label { fill: #7a6100; }
svg .bar { fill-opacity: .22; stroke-width: 1; }
svg .cap { stroke-width: 2; }
svg .end-explicit .bar, svg .end-explicit .cap { fill: var(--explicit); stroke: var(--explicit); }
svg .end-token .bar, svg .end-token .cap { fill: var(--token); stroke: var(--token); }
svg .end-deallocated .bar, svg .end-deallocated .cap { fill: var(--deallocated); stroke: var(--deallocated); }
svg .end-replaced .bar, svg .end-replaced .cap { fill: var(--replaced); stroke: var(--replaced); }
svg .end-live .bar { fill: var(--live); stroke: var(--live); stroke-dasharray: 4 2; }
svg .end-live .cap { stroke: var(--live); }
svg .end-other .bar, svg .end-other .cap { fill: var(--other); stroke: var(--other); }
svg .lane.hl .bar { fill-opacity: .45; stroke: var(--accent); stroke-width: 2; stroke-dasharray: none; }
svg .lane.hl .lane-label { font-weight: 700; }
svg .mark { fill: var(--mark); }
svg .mark.off-main { fill: var(--offmain); }
svg .mark.slow { fill: var(--slow); fill-opacity: .85; }
svg .mark.skipped { fill: none; stroke: var(--muted); stroke-width: 1; }
svg .tick { stroke: var(--tick); stroke-width: 1.5; }
svg .tick.silent { stroke: #a7adb7; stroke-dasharray: 2 1; }
svg .unregistered { stroke: var(--offmain); stroke-width: 1.6; fill: none; }
svg .gap { fill: var(--gap); }
svg .unknown { fill: var(--other); }
svg .scope .bar { fill: #ffe066; fill-opacity: .35; stroke: #c9a400; }
svg .scope-tick { stroke: #c9a400; stroke-width: 1.5; }
svg .scope-tick.ended { stroke-dasharray: 2 1; }
svg .scope.open .bar { stroke-dasharray: 4 2; }
svg .hl-event { fill: none; stroke: var(--accent); stroke-width: 2.5; }
svg .brush { fill: var(--accent); fill-opacity: .15; stroke: var(--accent); }
#tooltip { position: fixed; z-index: 10; max-width: 460px; padding: 7px 9px; background: #1f2430; color: #f1f3f5; border-radius: 5px; font-size: 12px; pointer-events: none; box-shadow: 0 4px 14px rgba(0,0,0,.25); word-break: break-word; }
#tooltip .title { font-weight: 700; margin-bottom: 3px; }
#tooltip table { border-collapse: collapse; }
#tooltip td { padding: 0 8px 0 0; vertical-align: top; }
#tooltip td.key { color: #aab2bd; white-space: nowrap; }
"""#
}
