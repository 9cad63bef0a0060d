// The one stylesheet of the guide pages: readable measure, system fonts, code that scrolls
// sideways instead of widening the page at 320 px, a nav that sits above the text on phones.
export const DOCS_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff}
a{color:#0b57d0}
a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem}
.skip:focus{left:0;z-index:1}
.top{border-bottom:1px solid #d0d7de;background:#f6f8fa}
.top p{margin:0 auto;max-width:72rem;padding:.75rem 1rem;font-weight:600}
.top a{color:inherit;text-decoration:none}
.wrap{display:flex;flex-direction:column;gap:1rem;max-width:72rem;margin:0 auto;padding:1rem}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a{display:inline-block;padding:.25rem 0}
nav a[aria-current="page"]{font-weight:700;color:#1b1f24}
main{min-width:0;max-width:52rem}
h1,h2,h3{line-height:1.25;margin:1.75rem 0 .75rem}
h1{margin-top:.5rem;font-size:2rem}
a.anchor{color:inherit;text-decoration:none}
a.anchor:hover{text-decoration:underline}
code{font:.9em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f6f8fa;padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem 1rem;overflow-x:auto}
pre code{padding:0;background:none;overflow-wrap:normal}
pre:focus-visible,table:focus-visible{outline:3px solid #0b57d0}
table{border-collapse:collapse;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
blockquote{margin:1rem 0;padding:.25rem 1rem;border-left:4px solid #d0d7de;color:#424a53}
@media (min-width:60rem){
.wrap{flex-direction:row;gap:2.5rem}
nav{flex:0 0 14rem;position:sticky;top:1rem;align-self:flex-start}
nav ul{flex-direction:column}
}
`;
