/** The status page's style sheet, kept in a module so a bundled Lambda serves it without files. */
export const UI_STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --accent: #2b6cb0; --bad: #c53030; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px 32px; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 8px 20px; padding: 12px 0;
  border-bottom: 1px solid var(--line); }
header h1 { font-size: 20px; margin: 0; }
header a { color: inherit; text-decoration: none; }
.meta { color: var(--muted); }
h2 { font-size: 16px; margin: 24px 0 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 10px 4px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
td.number, th.number { text-align: right; }
tr.empty td { color: var(--muted); font-style: italic; }
code, .key { font-family: ui-monospace, monospace; font-size: 13px; }
.tag { display: inline-block; padding: 0 6px; border-radius: 8px; border: 1px solid var(--line); }
.state-running { color: #2f855a; }
.state-ended { color: var(--muted); }
.result-failed { color: #c53030; font-weight: bold; }
.result-passed { color: #2f855a; }
.result-unknown { color: var(--muted); }
.grouping { font-size: 0.85em; }
.error { color: var(--bad); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
ol.events { margin: 0; padding-left: 20px; }
.columns { display: grid; grid-template-columns: minmax(280px, 1fr) 2fr; gap: 24px; }
@media (max-width: 800px) { .columns { grid-template-columns: 1fr; } }
#vnc { width: 100%; aspect-ratio: 16 / 10; border: 1px solid var(--line); background: #8881; }
.state-starting { color: var(--accent); }
#screen { max-width: 100%; border: 1px solid var(--line); background: #8881; min-height: 120px; }
button { font: inherit; padding: 6px 14px; border-radius: 4px; border: 1px solid var(--bad);
  background: var(--bad); color: #fff; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
video.recording { width: 240px; max-width: 100%; background: #000; }
img.last-frame { width: 160px; border: 1px solid var(--line); }
#recordings-search { font: inherit; padding: 4px 8px; width: min(420px, 100%); }
footer { margin-top: 32px; color: var(--muted); }
footer a { color: var(--accent); }
`;
