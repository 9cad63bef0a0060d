// The organizer app's one stylesheet: a plain, calm admin look built on a few tokens (space,
// colour, type scale), readable from 320 px up, with visible focus and no web fonts.
export const APP_CSS = `
:root{--space:1rem;--radius:6px;--text:#1d2430;--muted:#566070;--line:#d5dae1;--bg:#f6f7f9;--panel:#fff;
--accent:#1f4fbf;--accent-dark:#173c92;--danger:#a3241b;--good:#1e6b35;--warn-bg:#fff6da;--warn-line:#b58100;
--focus:#ffbf47;font-size:100%}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}a:hover{color:var(--accent-dark)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--panel);padding:.5rem 1rem;z-index:2}
.skip:focus{left:.5rem}
header.top{background:var(--panel);border-bottom:1px solid var(--line);padding:.75rem var(--space)}
.top-inner{max-width:60rem;margin:0 auto;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
.org{font-weight:700;font-size:1.125rem;margin:0;flex:1 1 auto;overflow-wrap:anywhere}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a[aria-current=page]{font-weight:700;color:var(--text)}
.inline{display:inline-flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin:0}
main{max-width:60rem;margin:0 auto;padding:1.5rem var(--space) 3rem}
main.narrow{max-width:28rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
h3{font-size:1.05rem;margin:1.25rem 0 .5rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin:0 0 1.25rem}
.muted,.hint{color:var(--muted)}
.hint{margin:.125rem 0 .375rem;font-size:.95rem}
.field{margin:0 0 1.1rem}
.field>label,legend{display:block;font-weight:600;margin-bottom:.25rem}
fieldset{border:0;margin:0 0 1.1rem;padding:0}
input[type=text],input[type=email],input[type=password],input[type=url],select{width:100%;max-width:28rem;
font:inherit;padding:.5rem .625rem;border:2px solid #6b7480;border-radius:4px;background:#fff;color:var(--text)}
.invalid input{border-color:var(--danger)}
.check{display:flex;gap:.5rem;align-items:flex-start;margin:.25rem 0}
.check input{width:1.25rem;height:1.25rem;margin:.125rem 0 0;flex:none}
button,.button{display:inline-block;font:inherit;font-weight:600;line-height:1.25;padding:.55rem 1rem;border-radius:4px;
border:2px solid var(--accent);background:#fff;color:var(--accent);cursor:pointer;text-decoration:none;text-align:center}
button:hover,.button:hover{background:#eef2fb}
button:disabled{opacity:.55;cursor:not-allowed}
.primary{background:var(--accent);color:#fff}.primary:hover{background:var(--accent-dark);color:#fff}
.danger{border-color:var(--danger);color:var(--danger)}.danger.primary{background:var(--danger);color:#fff}
.link{border:0;background:none;padding:0;color:var(--accent);text-decoration:underline;font-weight:400}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:1rem 0 0}
.error{color:var(--danger);font-weight:600;margin:.125rem 0 .375rem}
.summary{border:3px solid var(--danger);border-radius:var(--radius);background:#fff;padding:1rem;margin:0 0 1.25rem}
.summary h2{margin:0 0 .5rem;font-size:1.1rem}.summary ul{margin:0;padding-left:1.25rem}
.summary a{color:var(--danger);font-weight:600}
.notice{border-left:5px solid var(--accent);background:#fff;padding:.75rem 1rem;margin:0 0 1.25rem}
.notice.good{border-color:var(--good)}.notice.warn{border-color:var(--warn-line);background:var(--warn-bg)}
.notice.bad{border-color:var(--danger)}
table{width:100%;border-collapse:collapse;background:var(--panel)}
th,td{text-align:left;padding:.5rem .625rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.9rem;color:var(--muted);font-weight:600}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:var(--radius)}
.nowrap{white-space:nowrap}
@media (max-width:40rem){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}
table.stack tr{border-bottom:1px solid var(--line);padding:.375rem 0}table.stack td{border:0;padding:.125rem .625rem}
table.stack td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-weight:600}}
.status{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.875rem;border:1px solid var(--line)}
.status.active{color:var(--good);border-color:var(--good)}.status.revoked{color:var(--danger);border-color:var(--danger)}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95rem}
.secret{display:block;background:#f0f2f5;border:1px solid var(--line);border-radius:4px;padding:.5rem .625rem;
overflow-wrap:anywhere;user-select:all;margin:.25rem 0}
.copy-row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.copy-row .secret{flex:1 1 16rem;margin:0}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.375rem 1rem;margin:0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
ul.entries{list-style:none;padding:0;margin:0 0 .75rem}
ul.entries li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;padding:.375rem 0;border-bottom:1px solid var(--line)}
pre.mail{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid var(--line);padding:1rem;border-radius:var(--radius)}
.visually-hidden{position:absolute!important;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
ol.deliveries,ol.attempts{list-style:none;padding:0;margin:0}
.delivery h3{margin-top:0}
ol.attempts li{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:.375rem 0;border-top:1px solid var(--line)}
pre.excerpt,pre.snippet{flex:1 1 100%;margin:.25rem 0 0;white-space:pre-wrap;overflow-wrap:anywhere;background:#f0f2f5;
border:1px solid var(--line);border-radius:4px;padding:.5rem .625rem;font-size:.875rem}
.ok{color:var(--good)}.fail{color:var(--danger)}
.status.delivered{color:var(--good);border-color:var(--good)}.status.failed{color:var(--danger);border-color:var(--danger)}
ul.results li{display:block}
td.url{overflow-wrap:anywhere;word-break:break-all}
details.more-filters{margin:0 0 1rem}
details.more-filters summary{cursor:pointer;font-weight:600;padding:.4rem 0}
.filter-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:0 1rem;align-items:end}
ol.timeline{padding-left:1.2rem}
ol.timeline li{margin:0 0 .4rem;overflow-wrap:anywhere}
ul.refunds-due{list-style:none;padding:0;margin:0}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.5rem}
th,td{padding:.4rem}h1{font-size:1.4rem}}
.num{text-align:right}
.filter{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0 0 .75rem}.filter label{font-weight:600}
.filter select{width:auto;min-width:0;max-width:100%;flex:1 1 14rem}
figure.chart{margin:0}figure.chart>svg{display:block;width:100%;max-width:36rem;height:auto;color:var(--text)}
.panel>h3:first-child{margin-top:0}
.chart .grid{stroke:var(--line)}.chart .axis{stroke:var(--text)}.chart .tick{fill:currentColor}
ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;margin:.5rem 0}
ul.legend li{display:flex;align-items:center;gap:.375rem}
ul.capacity{list-style:none;padding:0;margin:0}
ul.capacity li{display:grid;grid-template-columns:minmax(6rem,12rem) 1fr;gap:.125rem .75rem;align-items:center;margin:0 0 .75rem}
svg.bar{display:block;width:100%;height:1rem}.capacity-figures{grid-column:2;font-size:.95rem}
.bar-left{fill:#e3e7ee;stroke:#6b7480;vector-effect:non-scaling-stroke}
summary{cursor:pointer;color:var(--accent);font-weight:600;margin:.5rem 0}
ul.hints{padding-left:1.25rem;margin:.75rem 0 0}
@media (max-width:40rem){ul.capacity li{grid-template-columns:1fr}.capacity-figures{grid-column:1}
table.stack tbody th{display:block;padding:.125rem .625rem;color:var(--text)}table.stack td.num{text-align:left}}
@media (forced-colors:active){.chart .grid,.chart .axis{stroke:CanvasText}.bar-left{fill:Canvas;stroke:CanvasText}}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.5rem 1.25rem;margin:0 0 1rem}
.facts dt{font-weight:600}.facts dd{margin:0;overflow-wrap:anywhere}
ul.plain{list-style:none;padding:0;margin:0}
fieldset.group{border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1rem}
input[type=datetime-local],textarea{width:100%;max-width:28rem;font:inherit;padding:.5rem .625rem;
border:2px solid #6b7480;border-radius:4px;background:#fff;color:var(--text)}
.invalid textarea,.invalid select{border-color:var(--danger)}
a.button{display:inline-block;padding:.5rem 1rem;border:2px solid var(--accent);border-radius:4px;text-decoration:none}
a.button.danger{border-color:var(--danger);color:var(--danger)}
details>summary{cursor:pointer;color:var(--accent);margin:.5rem 0}
`;
