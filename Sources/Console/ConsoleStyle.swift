/// The pages' style sheet, served as `/console/console.css`.
enum ConsoleStyle {
    static let text = #"""
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", sans-serif; color: #1f2328; background: #f6f8fa; }
header { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 8px 16px; background: #24292f; color: #f6f8fa; }
header a { color: #f6f8fa; }
header .brand { font-weight: 700; font-size: 16px; text-decoration: none; margin-right: 8px; }
header form { display: flex; gap: 6px; align-items: center; margin: 0; }
header .search input { width: 22em; }
header .sign-out { margin-left: auto; }
header .who { opacity: 0.8; }
input, select, button { font: inherit; padding: 3px 6px; }
main { padding: 12px 16px 40px; max-width: 1400px; }
h1 { font-size: 20px; margin: 6px 0 12px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; background: #fff; font-size: 13px; width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 3px 6px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eaeef2; }
td.number { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dl.facts dt { color: #57606a; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.none { color: #8c959f; }
.error { color: #a40e26; font-weight: 600; }
.hint { color: #57606a; }
.flag { padding: 0 5px; border-radius: 3px; color: #fff; }
.flag-precise { background: #1a9850; }
.flag-approximate { background: #e08214; }
.flag-unusable { background: #d73027; }
.kind { display: inline-block; min-width: 6em; color: #57606a; }
.map { height: 460px; border: 1px solid #d0d7de; margin: 0 0 12px; background: #bcd6e8; }
#map.leaflet-container { background: #bcd6e8; }
.map-off { padding: 16px; }
.map-credits { background: rgba(255, 255, 255, 0.8); padding: 0 5px; font-size: 11px; }
.cluster { border-radius: 50%; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; border: 2px solid #fff; box-shadow: 0 0 3px rgba(0, 0, 0, 0.5); }
.cluster-precise { background: #1a9850; }
.cluster-approximate { background: #e08214; }
.cluster-unusable { background: #d73027; }
.cluster-none { background: #6a51a3; }
.popup a, .popup strong { display: block; margin-bottom: 3px; }
.sign-in { display: flex; flex-direction: column; gap: 8px; max-width: 30em; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-end; margin: 8px 0; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: #57606a; }
.pages a { margin-right: 10px; }
ul#reports li, ul#search-results li { margin: 4px 0; }
"""#
}
